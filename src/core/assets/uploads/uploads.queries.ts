import type { TeamScope, UnitOfWork } from '../../platform/ctx.ts';
import { bigintNumber, int, jsonList, nullableInt, nullableText, oneOf, text } from '../../platform/row-checks.ts';
import { queryOne, queryRows } from '../../platform/sql.ts';

/*
 * Statements on `library_uploads` (upload.service.ts). Every statement on an upload names its
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
  /** Sizes of the pieces received (one per PATCH), in order. */
  parts: number[];
  /** What the store needs to append the next piece (Storage.appendPiece); null before the first piece. */
  storeState: Record<string, unknown> | null;
  placement: Record<string, unknown>;
  metadataHeader: string | null;
  status: UploadStatus;
  result: Record<string, unknown> | null;
  /** Epoch ms. */
  expiresAt: number;
  /** Whether the database's clock is past `expiresAt`. */
  expired: boolean;
}

const COLUMNS = `id::text as id, team_id, user_id, byte_length, byte_offset, parts, store_state, placement, metadata_header, status, result,
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
    storeState: row.store_state === null || row.store_state === undefined ? null : (row.store_state as Record<string, unknown>),
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

/** An upload no PATCH holds: no lease, or one that ran out. */
const UNLEASED = '(lease_token is null or lease_until <= now())';

/**
 * Takes the team's upload for one PATCH: its lease, `token` until `seconds` from now, unless
 * another request holds it. The row as it was; null when it is unknown or held.
 */
export async function claimUpload(scope: TeamScope, id: string, token: string, seconds: number): Promise<UploadRow | null> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `update library_uploads set lease_token = ?::uuid, lease_until = now() + make_interval(secs => ?)
      where id = ?::uuid and team_id = ? and ${UNLEASED} returning ${COLUMNS}`,
    [token, seconds, id, scope.teamId],
  );
  return row ? uploadOf(row) : null;
}

/** Moves the lease on while the PATCH's bytes keep arriving; false when it is not `token`'s any more. */
export async function renewLease(scope: TeamScope, id: string, token: string, seconds: number): Promise<boolean> {
  const rows = await queryRows(
    scope,
    `update library_uploads set lease_until = now() + make_interval(secs => ?) where id = ?::uuid and team_id = ? and lease_token = ?::uuid returning id`,
    [seconds, id, scope.teamId, token],
  );
  return rows.length > 0;
}

/** Gives the lease up (a PATCH that recorded nothing). */
export async function releaseLease(scope: TeamScope, id: string, token: string): Promise<void> {
  await queryRows(scope, 'update library_uploads set lease_token = null, lease_until = null where id = ?::uuid and team_id = ? and lease_token = ?::uuid', [
    id,
    scope.teamId,
    token,
  ]);
}

/** Locks the upload for the transaction that records a part, if `token` still holds its lease. */
export async function lockLeasedUpload(tx: TeamScope, id: string, token: string): Promise<boolean> {
  const row = await queryOne(tx, 'select id from library_uploads where id = ?::uuid and team_id = ? and lease_token = ?::uuid for update', [
    id,
    tx.teamId,
    token,
  ]);
  return row !== null;
}

/** tus termination's delete: 'deleted', 'leased' when a PATCH holds the upload (nothing deleted), null when there is no such upload. */
export async function deleteUnleasedUpload(scope: TeamScope, id: string): Promise<'deleted' | 'leased' | null> {
  const deleted = await queryRows(scope, `delete from library_uploads where id = ?::uuid and team_id = ? and ${UNLEASED} returning id`, [id, scope.teamId]);
  if (deleted.length > 0) return 'deleted';
  return (await findUpload(scope, id)) ? 'leased' : null;
}

/**
 * Records a piece received: the new offset, piece list and store state, the expiry moved
 * `expirySeconds` from now, the lease released.
 */
export async function recordPart(
  tx: TeamScope,
  id: string,
  piece: { offset: number; parts: readonly number[]; storeState: Record<string, unknown> },
  expirySeconds: number,
): Promise<UploadRow> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update library_uploads set byte_offset = ?, parts = ?::jsonb, store_state = ?::jsonb, expires_at = now() + make_interval(secs => ?),
        lease_token = null, lease_until = null
      where id = ?::uuid and team_id = ? returning ${COLUMNS}`,
    [piece.offset, JSON.stringify(piece.parts), JSON.stringify(piece.storeState), expirySeconds, id, tx.teamId],
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

/** Up to `limit` expired uploads of any team that no PATCH holds, locked for the caller's transaction (skipping locked ones): their ids. */
export async function lockExpiredUploads(tx: UnitOfWork, limit: number): Promise<string[]> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    `select id::text as id from library_uploads where expires_at <= now() and ${UNLEASED} order by expires_at limit ? for update skip locked`,
    [limit],
  );
  return rows.map((r) => text(r.id, 'id'));
}

/** Removes uploads by id (the maintenance job's, after their bytes). */
export async function deleteUploads(tx: UnitOfWork, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await queryRows(tx, 'delete from library_uploads where id = any(?::uuid[])', [`{${ids.join(',')}}`]);
}

/** The team's quota lock for this transaction: creations of one team check and reserve its quota one at a time. */
export async function lockTeamQuota(tx: TeamScope): Promise<void> {
  await queryRows(tx, "select pg_advisory_xact_lock(hashtext('library_uploads.quota'), ?::int)", [tx.teamId]);
}
