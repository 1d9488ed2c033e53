import { isMemberOfTeam } from '../../access/members.queries.ts';
import { requirePermission } from '../../access/roles.ts';
import type { Ctx, UnitOfWork } from '../../platform/ctx.ts';
import { DomainError, invalid, notFound } from '../../platform/errors.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { type FolderView, LIBRARY_LIMITS } from '../files/library.schemas.ts';
import { CreateFolderInput, FolderMemberInput, RenameFolderInput } from '../files/library-edit.schemas.ts';
import { addFolderMember, findLiveFolder, insertFolder, removeFolderMember, renameFolder, repathSubtree } from './folders.queries.ts';
import { checkFolderName } from './folders.ts';

const checkCreate = compileInput(CreateFolderInput);
const checkRename = compileInput(RenameFolderInput);
const checkMember = compileInput(FolderMemberInput);

/** A folder name is one path segment (docs/library.md): the path rules, and no slash. */
function checkName(name: string): void {
  checkFolderName(name, 'name');
  if (name.includes('/')) throw invalid('name', 'folder names must not contain "/"');
}

function nameInUse(): DomainError {
  return new DomainError('name_in_use', 'A live folder with this name already exists in the parent folder');
}

async function liveFolder(tx: UnitOfWork, teamId: number, id: number, lock = false): Promise<FolderView> {
  const folder = await findLiveFolder(tx, teamId, id, lock);
  if (!folder) throw notFound('Folder');
  return folder;
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
      const created = await insertFolder(tx, parent, body.name);
      if (!created) throw nameInUse();
      return created;
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
      await renameFolder(tx, id, body.name);
      await repathSubtree(tx, id, newPath, folder.path.length);
      return liveFolder(tx, tx.teamId, id);
    });
  }

  /** Grants a member access to a folder and its subtree (search-assets currentUserId); granting twice is a no-op. */
  async addMember(ctx: Ctx, input: unknown): Promise<{ folderId: number; userId: number }> {
    requirePermission(ctx, 'library:manage_access');
    const body = checkMember(input);
    return inTransaction(ctx, async (tx) => {
      await liveFolder(tx, tx.teamId, body.folderId);
      if (!(await isMemberOfTeam(tx, tx.teamId, body.userId))) throw invalid('userId', 'is not a member of the team');
      await addFolderMember(tx, body.folderId, body.userId);
      return { folderId: body.folderId, userId: body.userId };
    });
  }

  /** Withdraws a member's access to a folder; withdrawing what was never granted is a no-op. */
  async removeMember(ctx: Ctx, input: unknown): Promise<{ folderId: number; userId: number }> {
    requirePermission(ctx, 'library:manage_access');
    const body = checkMember(input);
    return inTransaction(ctx, async (tx) => {
      await liveFolder(tx, tx.teamId, body.folderId);
      await removeFolderMember(tx, body.folderId, body.userId);
      return { folderId: body.folderId, userId: body.userId };
    });
  }
}
