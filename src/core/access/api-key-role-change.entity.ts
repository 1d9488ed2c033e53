import { defineEntity, p } from '@mikro-orm/core';
import { dbTimestamp } from '../platform/timestamps.ts';
import { ApiKey } from './api-key.entity.ts';
import { Team } from './team.entity.ts';

/**
 * A change of an API key's role, written by a trigger on api_keys in the transaction that makes
 * it. The products sync feed (docs/products.md "Sync feed") reads it to tell which role a key had
 * when its previous sync cycle ended, so a narrowed role's client is told which drafts left its view.
 */
export const ApiKeyRoleChange = defineEntity({
  name: 'ApiKeyRoleChange',
  tableName: 'api_key_role_changes',
  indexes: [{ name: 'api_key_role_changes_key_at', properties: ['team', 'key', 'at'] }],
  properties: {
    id: p.bigint().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    key: () => p.manyToOne(ApiKey),
    fromRole: p.string().length(16),
    toRole: p.string().length(16),
    at: dbTimestamp(),
  },
});
