import type { TeamScope } from '../../platform/ctx.ts';
import { intArray, queryRows } from '../../platform/sql.ts';

/**
 * The rule by which a referenced file (`r`) is shown (docs/library.md "Version lines"): a live
 * file shows itself, a hidden version of a line shows the line's cover; anything else (in the
 * recycle bin, deleted) shows nothing. `VISIBLE_FROM` joins the line, `VISIBLE_WHERE` keeps the
 * references that show something, `VISIBLE_ID` is the id shown. One rule for every reader.
 */
export const VISIBLE_FROM = 'library_files r left join library_version_lines l on l.id = r.version_line_id and l.team_id = r.team_id';
export const VISIBLE_WHERE = 'r.recycle_entry_id is null and (r.deleted_at is null or l.id is not null)';
export const VISIBLE_ID = 'case when r.deleted_at is null then r.id else l.cover_file_id end';

/** The file-path IDs among `ids` as products see them, each to the id shown for it. */
export async function visibleFileIds(ctx: TeamScope, ids: readonly number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<{ requested: number; visible: number }>(
    ctx,
    `select r.id as requested, ${VISIBLE_ID} as visible from ${VISIBLE_FROM} where r.team_id = ? and r.id = any(?::int[]) and ${VISIBLE_WHERE}`,
    [ctx.teamId, intArray(ids)],
  );
  return new Map(rows.map((row) => [row.requested, row.visible]));
}
