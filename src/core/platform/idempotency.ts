import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import { type Ctx, requireKey, type UnitOfWork } from './ctx.ts';
import { DomainError, invalid } from './errors.ts';
import {
  claimRecord,
  claimRecordPending,
  deleteExpiredRecord,
  deleteExpiredRecords,
  type IdempotencyScope,
  lockPendingClaim,
  readRecord,
  recordHeldOutcome,
  recordOutcome,
  releasePendingClaim,
  type StoredRecord,
} from './idempotency.queries.ts';
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

/** Spec 4.1 and 8: up to 255 characters, not blank, no control characters. */
export function validateIdempotencyKey(key: string | undefined): void {
  if (key === undefined) return;
  if (key.trim() === '') throw invalid('Idempotency-Key', 'must not be blank');
  if (key.length > 255) throw invalid('Idempotency-Key', 'must be at most 255 characters');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(key)) throw invalid('Idempotency-Key', 'must not contain control characters');
}

export function requestHash(input: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(input) ?? 'null')
    .digest('hex');
}

function scopeOf(ctx: Ctx, request: IdempotencyRequest & { key: string }): IdempotencyScope {
  return [ctx.teamId, requireKey(ctx.actor).keyId, request.operation, request.key];
}

/** The replay of a committed record; other input under the same key is refused even while the first is still running. */
function replayOf<T>(stored: StoredRecord<T>, hash: string): IdempotentOutcome<T> | null {
  if (stored.requestHash !== hash) {
    throw new DomainError('idempotency_key_reused', 'This Idempotency-Key was used with different input in the last 24 hours');
  }
  return stored.pending ? null : { body: stored.body, etag: stored.etag, replayed: true };
}

/**
 * Runs a create at most once per Idempotency-Key within 24 hours, in the same transaction as the
 * record of its outcome. A concurrent request with the same key waits on the record's unique index
 * and then replays the committed outcome, so two racing requests create one resource.
 */
export async function withIdempotency<T>(ctx: Ctx, request: IdempotencyRequest, create: (tx: Ctx) => Promise<CreateOutcome<T>>): Promise<IdempotentOutcome<T>> {
  if (request.key === undefined) {
    const outcome = await inTransaction(ctx, create);
    return { ...outcome, replayed: false };
  }
  validateIdempotencyKey(request.key);
  const hash = requestHash(request.input);
  const scope = scopeOf(ctx, { ...request, key: request.key });
  return inTransaction(ctx, async (tx) => {
    await deleteExpiredRecord(tx, scope);
    const claimed = await claimRecord(tx, scope, hash);
    if (claimed !== null) {
      const outcome = await create(tx);
      await recordOutcome(tx, claimed, outcome);
      return { ...outcome, replayed: false };
    }
    const stored = await readRecord<T>(tx, scope);
    // a held claim (withHeldIdempotency) is never taken here: each operation uses one of the two forms
    const replay = stored && replayOf(stored, hash);
    if (!replay) throw new DomainError('write_conflict', 'The idempotency record changed concurrently; retry');
    return replay;
  });
}

export interface HeldIdempotencyRequest extends IdempotencyRequest {
  /**
   * How long the claim holds the key for the slow part and the commit: past it, the claimant is
   * presumed dead (a crashed process) and the next request with the key takes the claim over.
   */
  holdMs: number;
}

/** Runs `work` in the transaction that creates and records the outcome under the key; called once, at the end of a held create. */
export type CommitCreate<T> = (work: (tx: Ctx) => Promise<CreateOutcome<T>>) => Promise<CreateOutcome<T>>;

/** How long a request waiting on a held claim pauses between looks: short at first, at most 200 ms. */
function pauseBeforeLook(round: number): Promise<void> {
  const ms = Math.min(200, 10 * 2 ** round) * (0.5 + Math.random() / 2);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The same rules as withIdempotency for a create whose slow part (downloading assets) must not hold
 * a database transaction, and so a pooled connection, open while it runs. The key is claimed first
 * by a committed record marked pending until `holdMs` from now; the slow part runs; `commit` creates
 * and records the outcome in one transaction, which first checks that the claim is still this
 * request's. A concurrent request with the same key and input waits without holding a connection
 * (it looks at the record again after a short pause) and replays the outcome once committed; with
 * other input it is refused at once. A create that fails deletes its claim, so the key is not
 * consumed; a claim left by a crashed process lapses after `holdMs`.
 */
export async function withHeldIdempotency<T>(
  ctx: Ctx,
  request: HeldIdempotencyRequest,
  create: (commit: CommitCreate<T>) => Promise<CreateOutcome<T>>,
): Promise<IdempotentOutcome<T>> {
  if (request.key === undefined) {
    const outcome = await create((work) => inTransaction(ctx, work));
    return { ...outcome, replayed: false };
  }
  // the claim must commit on its own to be seen by concurrent requests
  if (ctx.em.isInTransaction()) throw new Error('withHeldIdempotency cannot run inside a transaction');
  validateIdempotencyKey(request.key);
  const hash = requestHash(request.input);
  const scope = scopeOf(ctx, { ...request, key: request.key });
  for (let round = 0; ; round++) {
    const claimed = await inTransaction(ctx, async (tx) => {
      await deleteExpiredRecord(tx, scope);
      return claimRecordPending(tx, scope, hash, request.holdMs);
    });
    if (claimed !== null) return runHeld(ctx, claimed, create);
    const stored = await readRecord<T>(ctx, scope);
    // no record: the claimant failed and released the key, so claim it now
    if (!stored) continue;
    const replay = replayOf(stored, hash);
    if (replay) return replay;
    await pauseBeforeLook(round);
  }
}

async function runHeld<T>(ctx: Ctx, claimId: string, create: (commit: CommitCreate<T>) => Promise<CreateOutcome<T>>): Promise<IdempotentOutcome<T>> {
  let committed = false;
  const commit: CommitCreate<T> = async (work) => {
    if (committed) throw new Error('a held create commits once');
    const outcome = await inTransaction(ctx, async (tx) => {
      // the lock keeps a takeover from deleting the claim until this commits (then it is no longer pending)
      if (!(await lockPendingClaim(tx, claimId)))
        throw new DomainError('write_conflict', 'The Idempotency-Key claim lapsed before the create committed; nothing was created; retry with the same key');
      const created = await work(tx);
      await recordHeldOutcome(tx, claimId, created);
      return created;
    });
    committed = true;
    return outcome;
  };
  try {
    const outcome = await create(commit);
    if (!committed) throw new Error('a held create must create through commit');
    return { ...outcome, replayed: false };
  } catch (e) {
    // only a claim that is still pending is this request's to release; a committed record stays
    if (!committed) await releasePendingClaim(ctx, claimId).catch(() => undefined);
    throw e;
  }
}

/** Deletes records past the replay window; run periodically by the maintenance worker. */
export async function purgeExpiredIdempotencyRecords(ctx: UnitOfWork): Promise<number> {
  return deleteExpiredRecords(ctx);
}
