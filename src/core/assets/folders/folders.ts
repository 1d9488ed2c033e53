import type { UnitOfWork } from '../../platform/ctx.ts';
import { invalid } from '../../platform/errors.ts';
import { LIBRARY_LIMITS } from '../files/library.schemas.ts';
import { findLiveChildForKeyShare, insertPathFolder, type PathFolder } from './folders.queries.ts';

const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Folder path syntax (docs/library.md): "/" (or nothing) is the root; otherwise "/" followed by
 * segments joined with "/", each 1-255 characters, not blank, not "." or "..", no control
 * characters, at most 32 levels. No trailing or doubled slash, so one folder has one spelling.
 */
export function parseFolderPath(path: string | undefined, field = 'folder'): string[] {
  if (path === undefined || path === '/') return [];
  if (!path.startsWith('/')) throw invalid(field, 'must start with "/", like /a/b');
  const segments = path.slice(1).split('/');
  if (segments.length > LIBRARY_LIMITS.folderDepth) throw invalid(field, `may have at most ${LIBRARY_LIMITS.folderDepth} levels`);
  for (const segment of segments) checkFolderName(segment, field);
  return segments;
}

/** One folder name: the rules of a path segment. */
export function checkFolderName(name: string, field = 'folder'): void {
  if (name.length === 0) throw invalid(field, 'must not contain an empty folder name (no "//" and no trailing "/")');
  if (name.length > LIBRARY_LIMITS.folderNameLength) throw invalid(field, `folder names may have at most ${LIBRARY_LIMITS.folderNameLength} characters`);
  if (name.trim().length === 0) throw invalid(field, 'folder names must not be blank');
  if (name === '.' || name === '..') throw invalid(field, 'folder names "." and ".." are not allowed');
  if (CONTROL.test(name)) throw invalid(field, 'folder names must not contain control characters');
}

/** The folder at the end of a path, with the ids from the root; the root is `{ folderId: null, folderIds: [] }`. */
export interface FolderPlace {
  folderId: number | null;
  folderIds: number[];
}

/**
 * Finds or creates each folder of a path under the team's root (issue: "creating folders as
 * needed"). Safe against concurrent imports: the insert skips on the live-sibling unique index
 * and the following read sees the row the other transaction committed.
 */
export async function ensureFolderPath(tx: UnitOfWork, teamId: number, segments: string[], userId: number | null): Promise<FolderPlace> {
  let parent: PathFolder | null = null;
  let path = '';
  for (const name of segments) {
    path += `/${name}`;
    parent = await ensureChild(tx, teamId, parent, name, path, userId);
  }
  return parent ? { folderId: parent.id, folderIds: parent.pathIds } : { folderId: null, folderIds: [] };
}

async function ensureChild(tx: UnitOfWork, teamId: number, parent: PathFolder | null, name: string, path: string, userId: number | null): Promise<PathFolder> {
  // a folder deleted into the recycle bin between the insert that found it and the read below is
  // simply made again: the second round's insert no longer conflicts
  for (let round = 0; ; round++) {
    // `for key share` keeps a folder found here live until this transaction ends: a concurrent
    // folder deletion waits for it, then takes what it placed there into the bin as well
    const row = (await insertPathFolder(tx, teamId, parent, name, path, userId)) ?? (await findLiveChildForKeyShare(tx, teamId, parent?.id ?? 0, name));
    if (row) return row;
    if (round >= 2) throw new Error(`folder ${path} kept disappearing while it was being found or made`);
  }
}
