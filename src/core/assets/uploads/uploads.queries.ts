import type { TeamScope, UnitOfWork } from '../../platform/ctx.ts';
import { bigintNumber, int, jsonList, nullableInt, nullableText, oneOf, text } from '../../platform/row-checks.ts';
import { queryOne, queryRows } from '../../platform/sql.ts';

/*
 * Statements on `library_uploads` (uploads.service.ts). Every statement on an upload names its
 * team: an id of another team's upload finds nothing, as an unknown one does.
 */

export const UPLOAD_STATUSES = ['receiving', 'completed'] as const;
export type UploadStatus = (typeof UPLOAD_STATUSES)[number];

/** An upload row as the service reads it. */
export interface UploadRow {
  id: string;
  teamId: number;
  userId: number | null;
  byteLength: number;
  byteOffset: number;
  /** Sizes of the part objects, in order. */
  parts: number[];
  placement: Record<string, unknown>;
  metadataHeader: string | null;
  status: UploadStatus;
  result: Record<string, unknown> | null;
  /** Epoch ms. */
  expiresAt: number;
  /** Whether the database's clock is past `expiresAt`. */
  expired: boolean;
}

const COLUMNS = `id::text as id, team_id, user_id, byte_length, byte_offset, parts, placement, metadata_header, status, result,
  (extract(epoch from expires_at) * 1000)::bigint as expires_ms, expires_at <= now() as expired`;

function uploadOf(row: Record<string, unknown>): UploadRow {
  const result = row.result;
  return {
    id: text(row.id, 'id'),
    teamId: int(row.team_id, 'team_id'),
    userId: nullableInt(row.user_id, 'user_id'),
    byteLength: bigintNumber(row.byte_length, 'byte_length'),
    byteOffset: bigintNumber(row.byte_offset, 'byte_offset'),
    parts: jsonList(row.parts, 'parts').map((size) => int(size, 'parts[]')),
    placement: row.placement as Record<string, unknown>,
    metadataHeader: nullableText(row.metadata_header, 'metadata_header'),
    status: oneOf(UPLOAD_STATUSES, row.status, 'status'),
    result: result === null || result === undefined ? null : (result as Record<string, unknown>),
    expiresAt: bigintNumber(row.expires_ms, 'expires_ms'),
    expired: row.expired === true,
  };
}

/** What a new upload holds. */
export interface NewUpload {
  id: string;
  teamId: number;
  userId: number | null;
  byteLength: number;
  placement: Record<string, unknown>;
  metadataHeader: string | null;
  expirySeconds: number;
}

/** A new upload, receiving, expiring `expirySeconds` from now. */
export async function insertUpload(tx: UnitOfWork, upload: NewUpload): Promise<UploadRow> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `insert into library_uploads (id, team_id, user_id, byte_length, placement, metadata_header, expires_at)
     values (?::uuid, ?, ?, ?, ?::jsonb, ?, now() + make_interval(secs => ?))
     returning ${COLUMNS}`,
    [upload.id, upload.teamId, upload.userId, upload.byteLength, JSON.stringify(upload.placement), upload.metadataHeader, upload.expirySeconds],
  );
  return uploadOf(row!);
}

/** The team's upload, or null (unknown, or another team's). */
export async function findUpload(scope: TeamScope, id: string): Promise<UploadRow | null> {
  const row = await queryOne<Record<string, unknown>>(scope, `select ${COLUMNS} from library_uploads where id = ?::uuid and team_id = ?`, [id, scope.teamId]);
  return row ? uploadOf(row) : null;
}

/**
 * The team's upload locked for this transaction, without waiting: a PATCH or a termination holds
 * it while it runs. 'locked' when another transaction holds it (SQLSTATE 55P03); null when there
 * is no such upload.
 */
export async function lockUpload(tx: TeamScope, id: string): Promise<UploadRow | 'locked' | null> {
  try {
    const row = await queryOne<Record<string, unknown>>(tx, `select ${COLUMNS} from library_uploads where id = ?::uuid and team_id = ? for update nowait`, [
      id,
      tx.teamId,
    ]);
    return row ? uploadOf(row) : null;
  } catch (e) {
    if (isLockNotAvailable(e)) return 'locked';
    throw e;
  }
}

function isLockNotAvailable(e: unknown): boolean {
  const err = e as { code?: string; cause?: { code?: string }; name?: string } | null;
  return err?.code === '55P03' || err?.cause?.code === '55P03' || err?.name === 'LockWaitTimeoutException';
}

/** Records a part received: the new offset and part list, the expiry moved `expirySeconds` from now. */
export async function recordPart(tx: TeamScope, id: string, offset: number, parts: readonly number[], expirySeconds: number): Promise<UploadRow> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update library_uploads set byte_offset = ?, parts = ?::jsonb, expires_at = now() + make_interval(secs => ?)
      where id = ?::uuid and team_id = ? returning ${COLUMNS}`,
    [offset, JSON.stringify(parts), expirySeconds, id, tx.teamId],
  );
  return uploadOf(row!);
}

/** Marks the upload completed with what it became. */
export async function completeUpload(tx: TeamScope, id: string, result: Record<string, unknown>): Promise<UploadRow> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update library_uploads set status = 'completed', result = ?::jsonb where id = ?::uuid and team_id = ? returning ${COLUMNS}`,
    [JSON.stringify(result), id, tx.teamId],
  );
  return uploadOf(row!);
}

/** Removes the team's upload row. */
export async function deleteUpload(tx: TeamScope, id: string): Promise<void> {
  await queryRows(tx, 'delete from library_uploads where id = ?::uuid and team_id = ?', [id, tx.teamId]);
}

/**
 * Bytes the team holds or has been promised: its stored objects (each content once) and the
 * lengths of its uploads still receiving and not expired (an abandoned upload counts against nothing).
 */
export async function teamBytesInUse(scope: TeamScope): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `select (select coalesce(sum(byte_size), 0) from stored_objects where team_id = ?)
          + (select coalesce(sum(byte_length), 0) from library_uploads where team_id = ? and status = 'receiving' and expires_at > now()) as used`,
    [scope.teamId, scope.teamId],
  );
  return bigintNumber(row!.used, 'used');
}

/** Up to `limit` expired uploads of any team, locked for the caller's transaction (skipping those a PATCH holds): their ids. */
export async function lockExpiredUploads(tx: UnitOfWork, limit: number): Promise<string[]> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    'select id::text as id from library_uploads where expires_at <= now() order by expires_at limit ? for update skip locked',
    [limit],
  );
  return rows.map((r) => text(r.id, 'id'));
}

/** Removes uploads by id (the maintenance job's, after their parts). */
export async function deleteUploads(tx: UnitOfWork, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await queryRows(tx, 'delete from library_uploads where id = any(?::uuid[])', [`{${ids.join(',')}}`]);
}

/** The team's quota lock for this transaction: creations of one team check and reserve its quota one at a time. */
export async function lockTeamQuota(tx: TeamScope): Promise<void> {
  await queryRows(tx, "select pg_advisory_xact_lock(hashtext('library_uploads.quota'), ?::int)", [tx.teamId]);
}
