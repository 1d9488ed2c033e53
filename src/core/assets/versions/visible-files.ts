import type { Ctx } from '../../platform/ctx.ts';
import { intArray, queryRows } from '../../platform/sql.ts';

/** The file-path IDs among `ids` as products see them: a hidden version of a line stands for the line's cover (docs/library.md). */
export async function visibleFileIds(ctx: Pick<Ctx, 'em' | 'teamId'>, ids: readonly number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<{ requested: number; visible: number }>(
    ctx,
    `select r.id as requested, case when r.deleted_at is null then r.id else l.cover_file_id end as visible
       from library_files r left join library_version_lines l on l.id = r.version_line_id and l.team_id = r.team_id
      where r.team_id = ? and r.id = any(?::int[]) and r.recycle_entry_id is null and (r.deleted_at is null or l.id is not null)`,
    [ctx.teamId, intArray(ids)],
  );
  return new Map(rows.map((row) => [row.requested, row.visible]));
}
