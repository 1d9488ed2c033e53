import type { UnitOfWork } from '../platform/ctx.ts';
import { queryRows } from '../platform/sql.ts';

/* Statements on API keys (api_keys). */

/**
 * Locks a key's row against changes of its key columns to the end of the transaction, so changes
 * made on the key's behalf (its approval callback URL) take turns, each seeing what the one before committed.
 */
export async function lockKey(tx: UnitOfWork, keyId: number): Promise<void> {
  await queryRows(tx, 'select 1 from api_keys where id = ? for no key update', [keyId]);
}
