import type { UnitOfWork } from '../../platform/ctx.ts';
import { float, int, jsonList, nullableFloat, nullableInt, nullableText, text, textList } from '../../platform/row-checks.ts';
import { intArray, queryOne, queryRows, textArray } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import type { StoredBytes } from '../recycle-bin/stored-bytes.ts';
import type { PaletteColour } from '../search/colour.ts';
import type { PendingInboundView } from './pending-inbound.schemas.ts';

/*
 * Statements on pending inbounds (library_pending_inbounds, docs/library.md "Pending inbound").
 * Each takes the team it reads or writes: an operator names it, so it is a parameter, not the
 * caller's scope.
 */

/** A pending inbound with what placing it needs besides the view: its content hash and palette. */
export interface PendingRow extends PendingInboundView {
  sha256: string;
  palette: PaletteColour[];
}

const VIEW_COLUMNS = `id, folder_path as "folderPath", name, extension, mime_type as "mimeType", byte_size::float8 as "byteSize", width, height,
  duration_ms::float8 as "durationMs", tags, description, score, link, user_id as "userId", ${isoSql('created_at')} as "createdAt"`;

function viewOf(row: Record<string, unknown>): PendingInboundView {
  return {
    id: int(row.id, 'id'),
    folderPath: text(row.folderPath, 'folderPath'),
    name: text(row.name, 'name'),
    extension: nullableText(row.extension, 'extension'),
    mimeType: text(row.mimeType, 'mimeType'),
    byteSize: float(row.byteSize, 'byteSize'),
    width: nullableInt(row.width, 'width'),
    height: nullableInt(row.height, 'height'),
    durationMs: nullableFloat(row.durationMs, 'durationMs'),
    tags: textList(row.tags, 'tags'),
    description: nullableText(row.description, 'description'),
    score: nullableInt(row.score, 'score'),
    link: nullableText(row.link, 'link'),
    userId: nullableInt(row.userId, 'userId'),
    createdAt: text(row.createdAt, 'createdAt'),
  };
}

/** What a pending inbound is made of: the import's plan with its content's key. */
export interface NewPendingInbound {
  teamId: number;
  folderPath: string;
  name: string;
  extension: string | null;
  tags: readonly string[];
  description: string | null;
  score: number | null;
  link: string | null;
  userId: number | null;
  sha256: string;
  storageKey: string;
  mimeType: string;
  byteSize: number;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  palette: readonly PaletteColour[];
}

/** A new pending inbound; its id. */
export async function insertPendingInbound(tx: UnitOfWork, row: NewPendingInbound): Promise<number> {
  const created = await queryOne<Record<string, unknown>>(
    tx,
    `insert into library_pending_inbounds (team_id, folder_path, name, extension, tags, description, score, link, user_id,
                                           sha256, storage_key, mime_type, byte_size, width, height, duration_ms, palette)
     values (?, ?, ?, ?, ?::text[], ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb) returning id`,
    [
      row.teamId,
      row.folderPath,
      row.name,
      row.extension,
      textArray(row.tags),
      row.description,
      row.score,
      row.link,
      row.userId,
      row.sha256,
      row.storageKey,
      row.mimeType,
      row.byteSize,
      row.width,
      row.height,
      row.durationMs,
      JSON.stringify(row.palette),
    ],
  );
  return int(created!.id, 'id');
}

/** The team's pending inbounds among `ids`, locked in id order. */
export async function lockPendingInbounds(tx: UnitOfWork, teamId: number, ids: readonly number[]): Promise<PendingRow[]> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    `select ${VIEW_COLUMNS}, sha256, palette from library_pending_inbounds where team_id = ? and id = any(?::int[]) order by id for update`,
    [teamId, intArray(ids)],
  );
  return rows.map((row) => ({ ...viewOf(row), sha256: text(row.sha256, 'sha256'), palette: jsonList(row.palette, 'palette') as PaletteColour[] }));
}

/** Removes the team's pending inbounds among `ids` (confirmed: their files were placed). */
export async function deletePendingInbounds(tx: UnitOfWork, teamId: number, ids: readonly number[]): Promise<void> {
  await queryRows(tx, 'delete from library_pending_inbounds where team_id = ? and id = any(?::int[])', [teamId, intArray(ids)]);
}

/** Removes the team's pending inbounds among `ids` (discarded); each removed one with the content it held. */
export async function discardPendingInbounds(tx: UnitOfWork, teamId: number, ids: readonly number[]): Promise<Array<{ id: number } & StoredBytes>> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    'delete from library_pending_inbounds where team_id = ? and id = any(?::int[]) returning id, sha256, storage_key as "storageKey"',
    [teamId, intArray(ids)],
  );
  return rows.map((row) => ({ id: int(row.id, 'id'), sha256: text(row.sha256, 'sha256'), storageKey: text(row.storageKey, 'storageKey') }));
}

/** How many pending inbounds the team has. */
export async function countPendingInbounds(op: UnitOfWork, teamId: number): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(op, 'select count(*)::int as n from library_pending_inbounds where team_id = ?', [teamId]);
  return int(row!.n, 'n');
}

/** A page of the team's pending inbounds, newest first. */
export async function pendingInboundPage(op: UnitOfWork, teamId: number, limit: number, offset: number): Promise<PendingInboundView[]> {
  const rows = await queryRows<Record<string, unknown>>(
    op,
    `select ${VIEW_COLUMNS} from library_pending_inbounds where team_id = ? order by id desc limit ? offset ?`,
    [teamId, limit, offset],
  );
  return rows.map(viewOf);
}
