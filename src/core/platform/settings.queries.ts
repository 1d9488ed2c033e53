import type { UnitOfWork } from './ctx.ts';
import { text } from './row-checks.ts';
import { queryOne } from './sql.ts';

/* Statements on the deployment's settings (settings: one row per name). */

/** Stores `secret` as the link signing secret unless one is stored already. */
export async function storeSigningSecretIfNone(op: UnitOfWork, secret: string): Promise<void> {
  await queryOne(op, `insert into settings (name, value) values ('link_signing_secret', ?) on conflict (name) do nothing`, [secret]);
}

/** The stored link signing secret, or null. */
export async function storedSigningSecret(op: UnitOfWork): Promise<string | null> {
  const row = await queryOne<Record<string, unknown>>(op, `select value from settings where name = 'link_signing_secret'`);
  return row && text(row.value, 'value');
}
