import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { UnitOfWork } from '../../platform/ctx.ts';
import { inTransaction } from '../../platform/tx.ts';
import { lockStorageKey } from '../recycle-bin/stored-bytes.queries.ts';
import type { ListedObject, Storage } from './storage.ts';
import {
  isContentStored,
  isKeyReferencedAnywhere,
  type ReferencedKey,
  referencedKeysAfter,
  referencedTotals,
  storedContentAmong,
} from './stored-keys.queries.ts';

/** Keys read from the database at a time. */
const PAGE = 1000;
/** Objects copied at once: enough to keep a remote store busy, few enough for the CLI's memory. */
const COPY_CONCURRENCY = 4;
/** At most this many of each kind of finding are listed; the counts are always whole. */
const LISTED_MAX = 1000;
/**
 * An unreferenced object younger than this is left alone: its import, upload or download may not
 * have committed its row yet (bytes are stored before the transaction that names them).
 */
export const UNREFERENCED_GRACE_MS = 60 * 60 * 1000;

export interface CopyProgress {
  objects: number;
  bytes: number;
  totalObjects: number;
  totalBytes: number;
}

export interface CopyReport {
  /** Referenced objects and their bytes. */
  objects: number;
  bytes: number;
  /** Copied and verified now. */
  copied: number;
  copiedBytes: number;
  /** Already at the destination with the recorded size (an earlier, interrupted run's work). */
  skipped: number;
  /** Referenced but absent from the source (nothing to copy: `storage check` on the source lists them). */
  missingAtSource: string[];
  /** Copies whose bytes did not hash to the object's SHA-256; nothing of them is left at the destination. */
  failed: { key: string; reason: string }[];
}

export interface CheckReport {
  /** Referenced keys and how many of them the store holds as recorded. */
  referenced: number;
  ok: number;
  missing: { key: string; size: number }[];
  missingCount: number;
  wrongSize: { key: string; expected: number; actual: number }[];
  wrongSizeCount: number;
  /** Objects no row names (nor derived images of stored content), older than the grace period. */
  unreferenced: { key: string; size: number }[];
  unreferencedCount: number;
  unreferencedBytes: number;
  /** Unreferenced objects younger than the grace period: possibly being placed now, never removed. */
  recent: number;
  /** Removed with --remove-unreferenced (each still unreferenced under its key's lock). */
  removed: number;
}

/** The content hash a derived image's key names (`derived/<recipe>/<ab>/<sha256>...`), or null. */
function derivedContent(key: string): string | null {
  if (!key.startsWith('derived/')) return null;
  return /\/([0-9a-f]{64})(?:[./]|$)/.exec(key)?.[1] ?? null;
}

/** Every referenced key in byte order, `pageSize` rows of each table at a time. */
async function* referencedKeys(op: UnitOfWork, pageSize: number): AsyncGenerator<ReferencedKey> {
  let after = '';
  for (;;) {
    const { keys, done } = await referencedKeysAfter(op, after, pageSize);
    yield* keys;
    if (done) return;
    after = keys[keys.length - 1]!.key;
  }
}

/**
 * The operator's care of the object store (docs/operations.md "Object storage"): copying every
 * referenced object from one store to another, verified by SHA-256 and resumable, and checking a
 * store against the database.
 */
export class StorageMaintenance {
  /** Rows read from each table at a time (tests make it small to cross page boundaries). */
  private readonly pageSize: number;

  constructor(options: { pageSize?: number } = {}) {
    this.pageSize = options.pageSize ?? PAGE;
  }

  /**
   * Copies every object a row references from `from` to `to`. Each copy is hashed as it streams and
   * read back from the destination and hashed again; a content-addressed object must hash to its
   * key's SHA-256 both times, any other (category icons) to the source's hash. An object already at
   * the destination with its recorded size is skipped, so a run that was interrupted resumes where
   * it stopped (writes are atomic in both stores: a present object is a whole one). Derived images
   * (previews, processed images) are not copied: they are made again on first request.
   */
  async copy(op: UnitOfWork, from: Storage, to: Storage, onProgress?: (progress: CopyProgress) => void): Promise<CopyReport> {
    const totals = await referencedTotals(op);
    const report: CopyReport = { objects: totals.objects, bytes: totals.bytes, copied: 0, copiedBytes: 0, skipped: 0, missingAtSource: [], failed: [] };
    const progress: CopyProgress = { objects: 0, bytes: 0, totalObjects: totals.objects, totalBytes: totals.bytes };
    onProgress?.({ ...progress });
    const copyOne = async (object: ReferencedKey) => {
      if ((await to.size(object.key)) === object.size) {
        report.skipped++;
      } else {
        const outcome = await copyVerified(from, to, object);
        if (outcome === 'missing') report.missingAtSource.push(object.key);
        else if (outcome !== 'copied') report.failed.push({ key: object.key, reason: outcome.failed });
        else {
          report.copied++;
          report.copiedBytes += object.size;
        }
      }
      progress.objects++;
      progress.bytes += object.size;
      onProgress?.({ ...progress });
    };
    const running = new Set<Promise<void>>();
    for await (const object of referencedKeys(op, this.pageSize)) {
      const task = copyOne(object).finally(() => running.delete(task));
      running.add(task);
      if (running.size >= COPY_CONCURRENCY) await Promise.race(running);
    }
    await Promise.all(running);
    return report;
  }

  /**
   * Compares a store with the database in one pass over both, in key order: referenced keys that
   * are missing or of another size than recorded, and objects no row names. Derived images of
   * stored content count as referenced; objects under `incoming/` (receptions that never finished)
   * do not. With `removeUnreferenced`, each unreferenced object older than the grace period is
   * removed once its key's lock is held and no row names it (as the recycle bin's permanent delete
   * does), so a concurrent import of the same bytes keeps them.
   */
  async check(op: UnitOfWork, storage: Storage, options: { removeUnreferenced?: boolean; nowMs?: number } = {}): Promise<CheckReport> {
    const nowMs = options.nowMs ?? Date.now();
    const report: CheckReport = {
      referenced: 0,
      ok: 0,
      missing: [],
      missingCount: 0,
      wrongSize: [],
      wrongSizeCount: 0,
      unreferenced: [],
      unreferencedCount: 0,
      unreferencedBytes: 0,
      recent: 0,
      removed: 0,
    };
    const candidates: ListedObject[] = [];
    const settle = async () => {
      const contents = await storedContentAmong(
        op,
        candidates.map((o) => derivedContent(o.key)).filter((sha): sha is string => sha !== null),
      );
      for (const object of candidates.splice(0)) {
        const sha = derivedContent(object.key);
        if (sha && contents.has(sha)) continue;
        if (nowMs - object.modifiedAt.getTime() < UNREFERENCED_GRACE_MS) {
          report.recent++;
          continue;
        }
        report.unreferencedCount++;
        report.unreferencedBytes += object.size;
        if (report.unreferenced.length < LISTED_MAX) report.unreferenced.push({ key: object.key, size: object.size });
        if (options.removeUnreferenced && (await removeIfUnreferenced(op, storage, object.key, sha))) report.removed++;
      }
    };
    const unlisted = async (object: ListedObject) => {
      candidates.push(object);
      if (candidates.length >= PAGE) await settle();
    };

    const stored = storage.list()[Symbol.asyncIterator]();
    let next = await stored.next();
    for await (const referenced of referencedKeys(op, this.pageSize)) {
      report.referenced++;
      while (!next.done && next.value.key < referenced.key) {
        await unlisted(next.value);
        next = await stored.next();
      }
      if (next.done || next.value.key !== referenced.key) {
        report.missingCount++;
        if (report.missing.length < LISTED_MAX) report.missing.push({ key: referenced.key, size: referenced.size });
        continue;
      }
      if (next.value.size === referenced.size) report.ok++;
      else {
        report.wrongSizeCount++;
        if (report.wrongSize.length < LISTED_MAX) report.wrongSize.push({ key: referenced.key, expected: referenced.size, actual: next.value.size });
      }
      next = await stored.next();
    }
    while (!next.done) {
      await unlisted(next.value);
      next = await stored.next();
    }
    await settle();
    return report;
  }
}

/** Copies one object, hashing it on the way and again read back; 'missing' when the source has no such object. */
async function copyVerified(from: Storage, to: Storage, object: ReferencedKey): Promise<'copied' | 'missing' | { failed: string }> {
  const source = await from.open(object.key);
  if (!source) return 'missing';
  const hash = createHash('sha256');
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await to.putStream(object.key, source.stream.pipe(hashing));
  const sourceHash = hash.digest('hex');
  const expected = object.sha256 ?? sourceHash;
  let reason: string | null = null;
  if (sourceHash !== expected) reason = `the source's bytes hash to ${sourceHash}, not ${expected}`;
  else {
    const copied = await to.open(object.key);
    const readBack = createHash('sha256');
    if (copied) await pipeline(copied.stream, readBack);
    const copiedHash = copied ? readBack.digest('hex') : null;
    if (copiedHash !== expected) reason = `the copy hashes to ${copiedHash ?? 'nothing (it is absent)'}, not ${expected}`;
  }
  if (reason === null) return 'copied';
  await to.remove(object.key);
  return { failed: reason };
}

/** Removes an object unless a row names it (or, for a derived image, its content is stored), deciding under the key's lock. */
async function removeIfUnreferenced(op: UnitOfWork, storage: Storage, key: string, derivedOf: string | null): Promise<boolean> {
  return inTransaction(op, async (tx) => {
    if (derivedOf) {
      await lockStorageKey(tx, key);
      if (await isContentStored(tx, derivedOf)) return false;
    } else {
      await lockStorageKey(tx, key);
      if (await isKeyReferencedAnywhere(tx, key)) return false;
    }
    await storage.remove(key);
    return true;
  });
}
