import { basename, extname } from 'node:path';
import { invalid } from '../../platform/errors.ts';
import { LIBRARY_LIMITS } from './library.schemas.ts';

const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * A file name is one path segment: 1-255 characters, not blank, no "/" and no control characters.
 * Without an explicit name the imported file's own name is used, under the same rules.
 */
export function fileNameOf(explicit: string | undefined, sourcePath: string): string {
  const name = explicit ?? basename(sourcePath);
  if (name.length === 0 || name.length > LIBRARY_LIMITS.nameLength) throw invalid('name', `must be 1-${LIBRARY_LIMITS.nameLength} characters`);
  if (name.trim().length === 0) throw invalid('name', 'must not be blank');
  if (name.includes('/') || CONTROL.test(name)) throw invalid('name', 'must not contain "/" or control characters');
  return name;
}

/** The extension a file shows (lower-case, no dot): its name's, or the content's when the name has none. */
export function extensionOf(name: string, detected: string | null): string | null {
  const fromName = extname(name).slice(1).toLowerCase();
  return /^[a-z0-9]{1,32}$/.test(fromName) ? fromName : detected;
}

/** Tags: each trimmed, 1-64 characters; duplicates collapse, first spelling and order kept. */
export function normalizeTags(tags: string[] | undefined): string[] {
  const names: string[] = [];
  for (const raw of tags ?? []) {
    const name = raw.trim();
    if (name.length === 0) throw invalid('tags', 'tag names must not be empty');
    if (name.length > LIBRARY_LIMITS.tagNameLength) throw invalid('tags', `tag names may have at most ${LIBRARY_LIMITS.tagNameLength} characters`);
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** The web page a file comes from (AssetItem `link`): an absolute http(s) URL without credentials. */
export function normalizeLink(link: string | undefined): string | null {
  if (link === undefined) return null;
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw invalid('link', 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('link', 'must use http or https');
  if (url.username || url.password) throw invalid('link', 'must not contain credentials');
  if (/\s/.test(link)) throw invalid('link', 'must not contain whitespace');
  return link;
}
