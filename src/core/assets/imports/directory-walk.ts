import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** A directory tree as an import sees it; paths are relative to its root, "/"-separated. */
export interface DirectoryTree {
  /** Every subdirectory, parents before children, so folders are mirrored even when empty. */
  directories: string[];
  files: string[];
  /** Entries that are not imported: symbolic links (never followed) and special files. */
  skipped: Array<{ path: string; error: string }>;
}

/** Walks a directory in name order without following symbolic links (they could leave the tree or loop). */
export async function walkDirectory(root: string): Promise<DirectoryTree> {
  const tree: DirectoryTree = { directories: [], files: [], skipped: [] };
  const pending = [''];
  while (pending.length > 0) {
    const relative = pending.shift()!;
    const entries = await readdir(join(root, relative), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        tree.directories.push(path);
        pending.push(path);
      } else if (entry.isFile()) {
        tree.files.push(path);
      } else if (entry.isSymbolicLink()) {
        tree.skipped.push({ path, error: 'symbolic links are not followed' });
      } else {
        tree.skipped.push({ path, error: 'not a regular file' });
      }
    }
  }
  return tree;
}
