import type { UnitOfWork } from './ctx.ts';
import { queryOne } from './sql.ts';

/* Statements about the database itself rather than a table. */

/** Resolves when the database answers a query (readiness); rejects when it cannot be reached. */
export async function pingDatabase(op: UnitOfWork): Promise<void> {
  await queryOne(op, 'select 1');
}
