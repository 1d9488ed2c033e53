import { ROLES } from '../../core/access/roles.ts';
import { enumFromCore } from '../enums.ts';

/** An API key's role (spec 4.1), as activity records, history entries and shares record it. */
export const KeyRoleEnum = enumFromCore('KeyRole', {
  description: 'The role of an API key (spec 4.1); each includes the ones before it.',
  values: ROLES,
  describe: {
    view_only: 'Reads the catalogue, published products and the library.',
    usable: 'Also downloads and shares products.',
    editable: 'Also reads drafts, creates, changes, publishes and deletes products, and edits the library.',
    manage: 'Also administers brands, categories, templates, folder access, custom fields and activity records.',
  },
});
