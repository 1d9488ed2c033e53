import { requirePermission } from '../../access/roles.ts';
import type { Ctx, UnitOfWork } from '../../platform/ctx.ts';
import { DomainError, invalid, notFound } from '../../platform/errors.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { checkFolderName } from './folders.ts';
import { CreateFolderInput, FolderMemberInput, RenameFolderInput } from '../files/library-edit.schemas.ts';
import { LIBRARY_LIMITS, type FolderView } from '../files/library.schemas.ts';
import { isoSql } from '../../platform/timestamps.ts';

const checkCreate = compileInput(CreateFolderInput);
const checkRename = compileInput(RenameFolderInput);
const checkMember = compileInput(FolderMemberInput);

const FOLDER_COLUMNS = `id, parent_id as "parentId", name, path, path_ids as "pathIds", ${isoSql('created_at')} as "createdAt"`;

/** A folder name is one path segment (docs/library.md): the path rules, and no slash. */
function checkName(name: string): void {
  checkFolderName(name, 'name');
  if (name.includes('/')) throw invalid('name', 'folder names must not contain "/"');
}

function nameInUse(): DomainError {
  return new DomainError('name_in_use', 'A live folder with this name already exists in the parent folder');
}

function asView(row: FolderView): FolderView {
  return { ...row, pathIds: row.pathIds.map(Number) };
}

async function liveFolder(tx: UnitOfWork, teamId: number, id: number, lock = false): Promise<FolderView> {
  const row = await queryOne<FolderView>(
    tx,
    `select ${FOLDER_COLUMNS} from library_folders where id = ? and team_id = ? and deleted_at is null${lock ? ' for update' : ''}`,
    [id, teamId],
  );
  if (!row) throw notFound('Folder');
  return asView(row);
}

/**
 * Folder edits for frontends (GraphQL, docs/search.md): creating and renaming folders needs the
 * editable role (`library:edit`); granting members access to folders needs manage
 * (`library:manage_access`). Sibling names stay unique among live folders (409 name_in_use).
 */
export class FolderEditService {
  /** Creates a folder under a live parent of the team, or at the top level (at most 32 levels deep). */
  async create(ctx: Ctx, input: unknown): Promise<FolderView> {
    requirePermission(ctx, 'library:edit');
    const body = checkCreate(input);
    checkName(body.name);
    return inTransaction(ctx, async (tx) => {
      const parent = body.parentId ? await liveFolder(tx, tx.teamId, body.parentId) : null;
      if (parent && parent.pathIds.length >= LIBRARY_LIMITS.folderDepth)
        throw invalid('parentId', `folders may be at most ${LIBRARY_LIMITS.folderDepth} levels deep`);
      const created = await queryOne<FolderView>(
        tx,
        `with next as (select nextval(pg_get_serial_sequence('library_folders', 'id'))::int as id)
         insert into library_folders (id, team_id, parent_id, name, path, path_ids)
         select next.id, ?, ?, ?, ?, ?::int[] || next.id from next
         on conflict (team_id, (coalesce(parent_id, 0)), name) where deleted_at is null do nothing
         returning ${FOLDER_COLUMNS}`,
        [tx.teamId, parent?.id ?? null, body.name, `${parent?.path ?? ''}/${body.name}`, intArray(parent?.pathIds ?? [])],
      );
      if (!created) throw nameInUse();
      return asView(created);
    });
  }

  /** Renames a folder; the paths of the folder and its whole subtree follow (path_ids do not change). */
  async rename(ctx: Ctx, id: number, input: unknown): Promise<FolderView> {
    requirePermission(ctx, 'library:edit');
    const body = checkRename(input);
    checkName(body.name);
    return inTransaction(ctx, async (tx) => {
      const folder = await liveFolder(tx, tx.teamId, id, true);
      if (folder.name === body.name) return folder;
      const newPath = `${folder.path.slice(0, folder.path.length - folder.name.length)}${body.name}`;
      // a sibling of that name is a unique violation, name_in_use (platform/db-errors.ts)
      await queryRows(tx, 'update library_folders set name = ?, updated_at = now() where id = ? and team_id = ?', [body.name, id, tx.teamId]);
      await queryRows(tx, 'update library_folders set path = ? || substr(path, ?) where team_id = ? and path_ids @> array[?]::int[] and deleted_at is null', [
        newPath,
        folder.path.length + 1,
        tx.teamId,
        id,
      ]);
      return liveFolder(tx, tx.teamId, id);
    });
  }

  /** Grants a member access to a folder and its subtree (search-assets currentUserId); granting twice is a no-op. */
  async addMember(ctx: Ctx, input: unknown): Promise<{ folderId: number; userId: number }> {
    requirePermission(ctx, 'library:manage_access');
    const body = checkMember(input);
    return inTransaction(ctx, async (tx) => {
      await liveFolder(tx, tx.teamId, body.folderId);
      const member = await queryOne(tx, 'select id from members where id = ? and team_id = ?', [body.userId, tx.teamId]);
      if (!member) throw invalid('userId', 'is not a member of the team');
      await queryRows(tx, 'insert into library_folder_members (folder_id, member_id, team_id) values (?, ?, ?) on conflict do nothing', [
        body.folderId,
        body.userId,
        tx.teamId,
      ]);
      return { folderId: body.folderId, userId: body.userId };
    });
  }

  /** Withdraws a member's access to a folder; withdrawing what was never granted is a no-op. */
  async removeMember(ctx: Ctx, input: unknown): Promise<{ folderId: number; userId: number }> {
    requirePermission(ctx, 'library:manage_access');
    const body = checkMember(input);
    return inTransaction(ctx, async (tx) => {
      await liveFolder(tx, tx.teamId, body.folderId);
      await queryRows(tx, 'delete from library_folder_members where folder_id = ? and member_id = ? and team_id = ?', [body.folderId, body.userId, tx.teamId]);
      return { folderId: body.folderId, userId: body.userId };
    });
  }
}
