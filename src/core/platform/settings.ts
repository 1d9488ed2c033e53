import type { UnitOfWork } from './ctx.ts';
import { randomSecret } from './ids.ts';
import { queryOne } from './sql.ts';

/**
 * The HMAC key for issued links and sync cursors: LINK_SIGNING_SECRET when configured, otherwise
 * one generated on first start and kept in the database, so every process of a deployment agrees.
 */
export async function loadSigningSecret(ctx: UnitOfWork, configured: string | null): Promise<string> {
  if (configured) return configured;
  await queryOne(ctx, `insert into settings (name, value) values ('link_signing_secret', ?) on conflict (name) do nothing`, [randomSecret(48)]);
  const row = await queryOne<{ value: string }>(ctx, `select value from settings where name = 'link_signing_secret'`);
  return row!.value;
}
