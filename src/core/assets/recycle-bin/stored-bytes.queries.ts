import type { UnitOfWork } from '../../platform/ctx.ts';
import { queryOne, queryRows } from '../../platform/sql.ts';

/*
 * Statements on storage keys, which several tables name (stored-bytes.ts says how bytes are
 * shared and released): the transaction-level lock on a key, and whether any row names it.
 */

/**
 * Each table whose rows name a storage key, as a query that finds one such row (each has an index
 * on `storage_key`). These look across teams on purpose: bytes are shared by content.
 */
const KEY_REFERENCES = [
  'select 1 from stored_objects where storage_key = ? limit 1',
  'select 1 from approval_assets where storage_key = ? limit 1',
  'select 1 from library_pending_inbounds where storage_key = ? limit 1',
];

/** Takes the key's lock, held until the transaction ends. */
export async function lockStorageKey(tx: UnitOfWork, key: string): Promise<void> {
  await queryRows(tx, 'select pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
}

/** Whether any row of any team names the key (KEY_REFERENCES, one table after another). */
export async function isStorageKeyReferenced(tx: UnitOfWork, key: string): Promise<boolean> {
  for (const sql of KEY_REFERENCES) {
    if (await queryOne(tx, sql, [key])) return true;
  }
  return false;
}
