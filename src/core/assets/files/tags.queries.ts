import type { UnitOfWork } from '../../platform/ctx.ts';
import { queryRows } from '../../platform/sql.ts';

/*
 * Statements on the team's tags and the files they tag (library_tags, library_file_tags); the
 * tag_names and tag_ids columns of library_files follow by triggers.
 */

/** Removes a file's tags but those named (a JSON array of names). */
export async function untagFileExcept(tx: UnitOfWork, teamId: number, fileId: number, namesJson: string): Promise<void> {
  await queryRows(
    tx,
    'delete from library_file_tags where file_id = ? and team_id = ? and tag_id not in (select id from library_tags where team_id = ? and name in (select value from json_array_elements_text(?::json)))',
    [fileId, teamId, teamId, namesJson],
  );
}

/** Creates the team's tags of these names (a JSON array) that it does not have yet. */
export async function ensureTags(tx: UnitOfWork, teamId: number, namesJson: string): Promise<void> {
  await queryRows(
    tx,
    'insert into library_tags (team_id, name) select ?, value from json_array_elements_text(?::json) on conflict (team_id, name) do nothing',
    [teamId, namesJson],
  );
}

/** Tags a file with the team's tags of these names (a JSON array); tags it has stay. */
export async function tagFile(tx: UnitOfWork, teamId: number, fileId: number, namesJson: string): Promise<void> {
  await queryRows(
    tx,
    `insert into library_file_tags (file_id, tag_id, team_id)
     select ?, t.id, t.team_id from library_tags t where t.team_id = ? and t.name in (select value from json_array_elements_text(?::json))
     on conflict (file_id, tag_id) do nothing`,
    [fileId, teamId, namesJson],
  );
}
