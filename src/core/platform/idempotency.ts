import { createHash } from 'node:crypto';
import { requireKey, type Ctx } from './ctx.ts';
import { DomainError, invalid } from './errors.ts';
import { queryOne, queryRows } from './sql.ts';
import { inTransaction } from './tx.ts';

/** What a create returns, and what a replay returns again; no HTTP status (each adapter answers a create its own way). */
export interface CreateOutcome<T = unknown> {
  body: T;
  etag: string | null;
}

export interface IdempotentOutcome<T = unknown> extends CreateOutcome<T> {
  replayed: boolean;
}

export interface IdempotencyRequest {
  /** The operation name, part of the scope: team + API key + operation. */
  operation: string;
  /** The Idempotency-Key header, or undefined when the client sent none. */
  key: string | undefined;
  /** The validated input; a replay with different input is refused. */
  input: unknown;
}

const REPLAY_WINDOW = "interval '24 hours'";

/** Spec 4.1 and 8: up to 255 characters, not blank, no control characters. */
export function validateIdempotencyKey(key: string | undefined): void {
  if (key === undefined) return;
  if (key.trim() === '') throw invalid('Idempotency-Key', 'must not be blank');
  if (key.length > 255) throw invalid('Idempotency-Key', 'must be at most 255 characters');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(key)) throw invalid('Idempotency-Key', 'must not contain control characters');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestHash(input: unknown): string {
  return createHash('sha256').update(canonicalJson(input)).digest('hex');
}

/**
 * Runs a create at most once per Idempotency-Key within 24 hours, in the same transaction as the
 * record of its outcome. A concurrent request with the same key waits on the record's unique index
 * and then replays the committed outcome, so two racing requests create one resource.
 */
export async function withIdempotency<T>(
  ctx: Ctx,
  request: IdempotencyRequest,
  create: (tx: Ctx) => Promise<CreateOutcome<T>>,
): Promise<IdempotentOutcome<T>> {
  if (request.key === undefined) {
    const outcome = await inTransaction(ctx, create);
    return { ...outcome, replayed: false };
  }
  validateIdempotencyKey(request.key);
  const hash = requestHash(request.input);
  const scope = [ctx.teamId, requireKey(ctx.actor).keyId, request.operation, request.key];
  return inTransaction(ctx, async (tx) => {
    await queryRows(
      tx,
      `delete from idempotency_records where team_id = ? and api_key_id = ? and operation = ? and idempotency_key = ?
         and created_at < now() - ${REPLAY_WINDOW}`,
      scope,
    );
    const claimed = await queryOne<{ id: string }>(
      tx,
      `insert into idempotency_records (team_id, api_key_id, operation, idempotency_key, request_hash, response_body)
       values (?, ?, ?, ?, ?, 'null'::jsonb)
       on conflict (team_id, api_key_id, operation, idempotency_key) do nothing
       returning id`,
      [...scope, hash],
    );
    if (claimed) {
      const outcome = await create(tx);
      await queryRows(tx, 'update idempotency_records set response_body = ?::jsonb, etag = ? where id = ?', [
        JSON.stringify(outcome.body),
        outcome.etag,
        claimed.id,
      ]);
      return { ...outcome, replayed: false };
    }
    const stored = await queryOne<{ request_hash: string; response_body: T; etag: string | null }>(
      tx,
      `select request_hash, response_body, etag from idempotency_records
        where team_id = ? and api_key_id = ? and operation = ? and idempotency_key = ?`,
      scope,
    );
    if (!stored) throw new DomainError('write_conflict', 'The idempotency record changed concurrently; retry');
    if (stored.request_hash !== hash) {
      throw new DomainError('idempotency_key_reused', 'This Idempotency-Key was used with different input in the last 24 hours');
    }
    return { body: stored.response_body, etag: stored.etag, replayed: true };
  });
}

/** Deletes records past the replay window; run periodically by the maintenance worker. */
export async function purgeExpiredIdempotencyRecords(ctx: Pick<Ctx, 'em'>): Promise<number> {
  const rows = await queryRows<{ id: string }>(
    ctx,
    `delete from idempotency_records where created_at < now() - ${REPLAY_WINDOW} returning id`,
  );
  return rows.length;
}
