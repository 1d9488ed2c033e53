import { defineEntity, p } from '@mikro-orm/core';

/** Service-wide settings kept in the database, such as the generated link-signing secret. */
export const Setting = defineEntity({
  name: 'Setting',
  tableName: 'settings',
  properties: {
    name: p.string().length(64).primary(),
    value: p.text(),
  },
});
