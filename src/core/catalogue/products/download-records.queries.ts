import { VISIBLE_FROM, VISIBLE_ID, VISIBLE_WHERE } from '../../assets/versions/version-lines.queries.ts';
import type { TeamScope } from '../../platform/ctx.ts';
import { bigintNumber, int, intList, nullableInt, nullableText, text } from '../../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import type { DownloadRecordView } from './product-downloads.schemas.ts';

/* Statements on product download records (download_records), and the files a download delivers. Every statement names the team. */

const RECORD_COLUMNS = `id, product_id as "productId", file_ids as "fileIds", file_count as "fileCount", total_bytes::text as "totalBytes",
  ${isoSql('created_at')} as at, actor, actor_key_id as "keyId", actor_role as role, share_id as "shareId"`;

/** A download record as written: the files delivered, their bytes and who downloaded them (as its record names them). */
export interface DownloadEntry {
  productId: number;
  shareId: number | null;
  fileIds: number[];
  bytes: number;
  actor: string;
  keyId: number | null;
  role: string | null;
  requestId: string | null;
}

/** Writes a download record; its id. */
export async function insertDownloadRecord(tx: TeamScope, entry: DownloadEntry): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `insert into download_records (team_id, product_id, share_id, file_ids, file_count, total_bytes, actor, actor_key_id, actor_role, request_id)
       values (?, ?, ?, ?::int[], ?, ?, ?, ?, ?, ?) returning id`,
    [
      tx.teamId,
      entry.productId,
      entry.shareId,
      intArray(entry.fileIds),
      entry.fileIds.length,
      entry.bytes,
      entry.actor,
      entry.keyId,
      entry.role,
      entry.requestId,
    ],
  );
  return bigintNumber(row!.id, 'id');
}

function recordOf(row: Record<string, unknown>): DownloadRecordView {
  return {
    id: bigintNumber(row.id, 'id'),
    productId: int(row.productId, 'productId'),
    fileIds: intList(row.fileIds, 'fileIds'),
    fileCount: int(row.fileCount, 'fileCount'),
    totalBytes: text(row.totalBytes, 'totalBytes'),
    at: text(row.at, 'at'),
    actor: text(row.actor, 'actor'),
    keyId: nullableInt(row.keyId, 'keyId'),
    role: nullableText(row.role, 'role'),
    shareId: nullableInt(row.shareId, 'shareId'),
  };
}

/** Which records a listing shows: one product's, or every record of the team. */
export type DownloadRecordsOf = { productId: number } | 'team';

function condition(of: DownloadRecordsOf): { sql: string; params: unknown[] } {
  return of === 'team' ? { sql: 'true', params: [] } : { sql: 'product_id = ?', params: [of.productId] };
}

/** How many download records a listing holds. */
export async function countDownloadRecords(scope: TeamScope, of: DownloadRecordsOf): Promise<number> {
  const where = condition(of);
  const row = await queryOne<Record<string, unknown>>(scope, `select count(*)::int as n from download_records where team_id = ? and ${where.sql}`, [
    scope.teamId,
    ...where.params,
  ]);
  return int(row!.n, 'n');
}

/** A page of download records, newest first. */
export async function downloadRecordsPage(scope: TeamScope, of: DownloadRecordsOf, limit: number, offset: number): Promise<DownloadRecordView[]> {
  const where = condition(of);
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${RECORD_COLUMNS} from download_records where team_id = ? and ${where.sql} order by id desc limit ? offset ?`,
    [scope.teamId, ...where.params, limit, offset],
  );
  return rows.map(recordOf);
}

/** A file a download may deliver: the one asked for by id, with its name, size and stored bytes' digest. */
export interface DeliverableFile {
  requested: number;
  name: string;
  bytes: number;
  sha256: string;
}

/**
 * The team's live files among `ids`, in no particular order, with their stored bytes; a hidden
 * version of a version line is delivered as the line's cover, as product media show it.
 */
export async function deliverableFiles(scope: TeamScope, ids: readonly number[]): Promise<DeliverableFile[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select r.id as requested, f.name, f.byte_size::text as bytes, o.sha256
       from ${VISIBLE_FROM}
       join library_files f on f.team_id = r.team_id and f.deleted_at is null and f.id = ${VISIBLE_ID}
       join stored_objects o on o.id = f.object_id and o.team_id = f.team_id
      where r.team_id = ? and r.id = any(?::int[]) and ${VISIBLE_WHERE}`,
    [scope.teamId, intArray(ids)],
  );
  return rows.map((row) => ({
    requested: int(row.requested, 'requested'),
    name: text(row.name, 'name'),
    bytes: bigintNumber(row.bytes, 'bytes'),
    sha256: text(row.sha256, 'sha256'),
  }));
}
