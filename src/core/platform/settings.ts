import type { UnitOfWork } from './ctx.ts';
import { randomSecret } from './ids.ts';
import { storedSigningSecret, storeSigningSecretIfNone } from './settings.queries.ts';

/**
 * The HMAC key for issued links and sync cursors: LINK_SIGNING_SECRET when configured, otherwise
 * one generated on first start and kept in the database, so every process of a deployment agrees.
 */
export async function loadSigningSecret(ctx: UnitOfWork, configured: string | null): Promise<string> {
  if (configured) return configured;
  await storeSigningSecretIfNone(ctx, randomSecret(48));
  return (await storedSigningSecret(ctx))!;
}
