import type { UnitOfWork } from '../../platform/ctx.ts';
import { int } from '../../platform/row-checks.ts';
import { queryOne, queryRows } from '../../platform/sql.ts';
import type { ContentFacts } from './probe.ts';

/*
 * Statements of an import placing a file (library-import.service.ts): its stored object (one per team and
 * content), the library file, and its tags. Each takes the team of the import plan: an import
 * may run for a team the operator names, so the team is a parameter, not the caller's scope.
 */

/** The team's stored object of `facts.sha256` under `storageKey`, created on first import; its id. */
export async function ensureStoredObject(tx: UnitOfWork, teamId: number, facts: ContentFacts, storageKey: string, userId: number | null): Promise<number> {
  const created = await queryOne<Record<string, unknown>>(
    tx,
    `insert into stored_objects (team_id, sha256, storage_key, mime_type, byte_size, width, height, duration_ms, create_user_id)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (team_id, sha256) do nothing returning id`,
    [teamId, facts.sha256, storageKey, facts.mimeType, facts.byteSize, facts.width, facts.height, facts.durationMs, userId],
  );
  if (created) return int(created.id, 'id');
  const existing = await queryOne<Record<string, unknown>>(tx, 'select id from stored_objects where team_id = ? and sha256 = ?', [teamId, facts.sha256]);
  return int(existing!.id, 'id');
}

/** What an imported library file is made of. */
export interface ImportedFileRow {
  teamId: number;
  folderId: number | null;
  objectId: number;
  name: string;
  extension: string | null;
  facts: Pick<ContentFacts, 'mimeType' | 'byteSize' | 'width' | 'height' | 'durationMs'>;
  description: string | null;
  score: number | null;
  link: string | null;
  source: number;
  /** Owner, creator and last editor; null: the system. */
  userId: number | null;
}

/** A new library file; its id. */
export async function insertImportedFile(tx: UnitOfWork, file: ImportedFileRow): Promise<number> {
  const { facts, userId } = file;
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `insert into library_files (team_id, folder_id, object_id, name, extension, mime_type, byte_size, width, height, duration_ms,
                                description, score, link, source, owner_id, creator_id, create_user_id, update_user_id)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
    [
      file.teamId,
      file.folderId,
      file.objectId,
      file.name,
      file.extension,
      facts.mimeType,
      facts.byteSize,
      facts.width,
      facts.height,
      facts.durationMs,
      file.description,
      file.score,
      file.link,
      file.source,
      userId,
      userId,
      userId,
      userId,
    ],
  );
  return int(row!.id, 'id');
}

/** Tags are team rows found or created by name, then joined to the file. */
export async function tagImportedFile(tx: UnitOfWork, teamId: number, fileId: number, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  const json = JSON.stringify(names);
  await queryRows(
    tx,
    `insert into library_tags (team_id, name) select ?, value from json_array_elements_text(?::json)
     on conflict (team_id, name) do nothing`,
    [teamId, json],
  );
  await queryRows(
    tx,
    `insert into library_file_tags (file_id, tag_id, team_id)
     select ?, t.id, t.team_id from library_tags t
      where t.team_id = ? and t.name in (select value from json_array_elements_text(?::json))`,
    [fileId, teamId, json],
  );
}
