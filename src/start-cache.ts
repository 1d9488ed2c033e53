import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { enableCompileCache, getCompileCacheDir, registerHooks } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What an operator command spends most of its start on is loading some 500-1,300 modules
 * (bench/RESULTS.md "CLI start"); a worker process, about 80 % of its start-up, in which the
 * approval timers due then wait (bench/RESULTS-approvals.md). Two caches, both beside each other in Node's compile cache
 * directory (the OS temp directory; NODE_COMPILE_CACHE moves it, NODE_DISABLE_COMPILE_CACHE=1 turns
 * both off):
 *
 * - Node's compile cache keeps the modules' compiled code and stripped TypeScript between runs.
 * - A resolution cache remembers where each import resolved to and its format, sparing the
 *   package.json lookups and file checks Node repeats for every module of every run. It is
 *   dropped whenever npm changes node_modules or package.json changes (their size and time are
 *   its key), and an entry whose file is gone is resolved again, so renaming a source file
 *   cannot break a run.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Resolutions by import conditions, importing module and specifier: [url, format]. URLs under the repository are kept relative to it. */
type Entries = Record<string, Record<string, Record<string, [string, string | null | undefined]>>>;

const ROOT_URL = new URL('..', import.meta.url).href;
const short = (url: string) => (url.startsWith(ROOT_URL) ? `./${url.slice(ROOT_URL.length)}` : url);
const full = (url: string) => (url.startsWith('./') ? ROOT_URL + url.slice(2) : url);

/** The layout of the cache file; a new layout starts a new cache. */
const LAYOUT = 3;

/** Changes whenever `npm install` / `npm ci` rewrites node_modules, package.json changes (its `type` decides formats), or Node changes. */
function fingerprint(): string {
  const parts = [`layout ${LAYOUT}`, process.version, ROOT];
  for (const file of ['package.json', 'package-lock.json', 'node_modules/.package-lock.json']) {
    try {
      const s = statSync(join(ROOT, file));
      parts.push(`${file}:${s.size}:${s.mtimeMs}`);
    } catch {
      parts.push(`${file}:none`);
    }
  }
  return createHash('sha256').update(parts.join('\n')).digest('hex');
}

function readCache(file: string, key: string): Entries {
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { key: string; entries: Entries };
    if (stored.key === key) return stored.entries;
  } catch {
    // none yet, or unreadable: start empty
  }
  return {};
}

function useResolutionCache(directory: string, entry: string): void {
  const key = fingerprint();
  const file = join(directory, `shelf-${entry}-resolve-${createHash('sha256').update(ROOT).digest('hex').slice(0, 16)}.json`);
  const entries = readCache(file, key);
  let added = false;
  registerHooks({
    resolve(specifier, context, next) {
      const conditions = (context.conditions ?? []).join(',');
      const parent = short(context.parentURL ?? '');
      const hit = entries[conditions]?.[parent]?.[specifier];
      // no format (a require(), an addon) is left for Node to determine, exactly as when resolving
      if (hit && existsSync(fileURLToPath(full(hit[0])))) return { url: full(hit[0]), format: hit[1] ?? undefined, shortCircuit: true };
      const resolved = next(specifier, context);
      if (resolved.url.startsWith('file:')) {
        ((entries[conditions] ??= {})[parent] ??= {})[specifier] = [short(resolved.url), resolved.format ?? null];
        added = true;
      }
      return resolved;
    },
  });
  process.on('exit', () => {
    if (!added) return;
    try {
      // written whole and renamed into place: concurrent runs never read half a file
      const temporary = `${file}.${process.pid}`;
      writeFileSync(temporary, JSON.stringify({ key, entries }));
      renameSync(temporary, file);
    } catch {
      // a cache that cannot be written only costs the next run its speed
    }
  });
}

/**
 * Turns both caches on; call it before any other module loads. Each entry point (`cli`, `server`)
 * keeps its own resolution cache, so processes of the two never overwrite each other's.
 */
export function enableStartCaches(entry: 'cli' | 'server'): void {
  enableCompileCache();
  const directory = getCompileCacheDir();
  if (directory) useResolutionCache(directory, entry);
}
