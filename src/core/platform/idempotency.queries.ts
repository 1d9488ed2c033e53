import type { UnitOfWork } from './ctx.ts';
import { bigintText, bool, nullableText, text } from './row-checks.ts';
import { queryOne, queryRows } from './sql.ts';

/* Statements on Idempotency-Key records (idempotency_records). idempotency.ts says how they are used. */

/** How long a record replays its create (spec 4.1). */
const REPLAY_WINDOW = "interval '24 hours'";

/** What names a record: team + API key + operation + Idempotency-Key (the table's unique key). */
export type IdempotencyScope = [teamId: number, apiKeyId: number, operation: string, key: string];

/** A record as stored: the hash of the create's input, its outcome (`body` as the create returned it, stored as JSON), and whether its claim is still held. */
export interface StoredRecord<T> {
  requestHash: string;
  body: T;
  etag: string | null;
  pending: boolean;
}

/** Forgets the scope's record when it is past the replay window, or a held claim past its lease. */
export async function deleteExpiredRecord(tx: UnitOfWork, scope: IdempotencyScope): Promise<void> {
  await queryRows(
    tx,
    `delete from idempotency_records where team_id = ? and api_key_id = ? and operation = ? and idempotency_key = ?
       and (created_at < now() - ${REPLAY_WINDOW} or pending_until < now())`,
    scope,
  );
}

/** The scope's record; null when there is none. The body is the caller's to type: it stored it. */
export async function readRecord<T>(op: UnitOfWork, scope: IdempotencyScope): Promise<StoredRecord<T> | null> {
  const row = await queryOne<Record<string, unknown>>(
    op,
    `select request_hash, response_body, etag, pending_until is not null as pending from idempotency_records
      where team_id = ? and api_key_id = ? and operation = ? and idempotency_key = ?`,
    scope,
  );
  if (!row) return null;
  return {
    requestHash: text(row.request_hash, 'request_hash'),
    body: row.response_body as T,
    etag: nullableText(row.etag, 'etag'),
    pending: bool(row.pending, 'pending'),
  };
}

/** Claims the scope for a create of input `requestHash`, to commit with it; the record's id (bigint digits), or null when the scope has a record already. */
export async function claimRecord(tx: UnitOfWork, scope: IdempotencyScope, requestHash: string): Promise<string | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `insert into idempotency_records (team_id, api_key_id, operation, idempotency_key, request_hash, response_body)
       values (?, ?, ?, ?, ?, 'null'::jsonb)
       on conflict (team_id, api_key_id, operation, idempotency_key) do nothing
       returning id`,
    [...scope, requestHash],
  );
  return row ? bigintText(row.id, 'id') : null;
}

/** Claims the scope for a create of input `requestHash`, pending for `holdMs` from now; the record's id (bigint digits), or null when the scope has a record already. */
export async function claimRecordPending(tx: UnitOfWork, scope: IdempotencyScope, requestHash: string, holdMs: number): Promise<string | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `insert into idempotency_records (team_id, api_key_id, operation, idempotency_key, request_hash, response_body, pending_until)
         values (?, ?, ?, ?, ?, 'null'::jsonb, now() + ? * interval '1 millisecond')
         on conflict (team_id, api_key_id, operation, idempotency_key) do nothing
         returning id`,
    [...scope, requestHash, holdMs],
  );
  return row ? bigintText(row.id, 'id') : null;
}

/** Records a claimed create's outcome. */
export async function recordOutcome(tx: UnitOfWork, recordId: string, outcome: { body: unknown; etag: string | null }): Promise<void> {
  await queryRows(tx, 'update idempotency_records set response_body = ?::jsonb, etag = ? where id = ?', [JSON.stringify(outcome.body), outcome.etag, recordId]);
}

/** Locks a held claim until the transaction ends; false when it is no longer pending (or gone). */
export async function lockPendingClaim(tx: UnitOfWork, recordId: string): Promise<boolean> {
  const row = await queryOne(tx, 'select id from idempotency_records where id = ? and pending_until is not null for update', [recordId]);
  return row !== null;
}

/** Records a held claim's outcome and ends its hold. */
export async function recordHeldOutcome(tx: UnitOfWork, recordId: string, outcome: { body: unknown; etag: string | null }): Promise<void> {
  await queryRows(tx, 'update idempotency_records set response_body = ?::jsonb, etag = ?, pending_until = null where id = ?', [
    JSON.stringify(outcome.body),
    outcome.etag,
    recordId,
  ]);
}

/** Deletes a claim that is still pending (a committed record stays). */
export async function releasePendingClaim(op: UnitOfWork, recordId: string): Promise<void> {
  await queryRows(op, 'delete from idempotency_records where id = ? and pending_until is not null', [recordId]);
}

/** Deletes records past the replay window; how many. */
export async function deleteExpiredRecords(op: UnitOfWork): Promise<number> {
  const rows = await queryRows(op, `delete from idempotency_records where created_at < now() - ${REPLAY_WINDOW} returning id`);
  return rows.length;
}
