import type { UnitOfWork } from '../../platform/ctx.ts';
import { DomainError } from '../../platform/errors.ts';
import { inTransaction } from '../../platform/tx.ts';
import { derivedImagesPrefix } from '../delivery/derivatives.ts';
import { previewKey } from '../delivery/previews.ts';
import type { Storage } from '../storage/storage.ts';
import { isStorageKeyReferenced, lockStorageKey } from './stored-bytes.queries.ts';

/**
 * Content-addressed bytes are shared: one key may be named by stored objects of several teams,
 * by approval assets and by pending inbound items. Bytes leave storage only when no row names
 * their key any more. Every writer that relies on bytes already being there, and the permanent
 * delete that removes them, take the same transaction-level lock on the key first, so a delete can
 * never slip between an import's "the bytes are there" and its commit.
 */

/** A stored content: its hash (for its preview and processed images) and its key. */
export interface StoredBytes {
  sha256: string;
  storageKey: string;
}

/** Several keys' locks, in one order (sorted), so two transactions never wait on each other in a circle. */
export async function lockStorageKeys(tx: UnitOfWork, keys: readonly string[]): Promise<void> {
  for (const key of [...new Set(keys)].sort()) await lockStorageKey(tx, key);
}

/**
 * Removes the bytes (with their preview and processed images) of each object no row names any
 * more, each under its key's lock: a writer placing the same bytes either committed its row first
 * (the bytes stay) or finds them gone once it holds the lock and writes them again.
 */
async function releaseUnreferencedBytes(tx: UnitOfWork, storage: Storage, objects: readonly StoredBytes[]): Promise<number> {
  let released = 0;
  const sorted = [...new Map(objects.map((o) => [o.storageKey, o])).values()].sort((a, b) =>
    a.storageKey < b.storageKey ? -1 : a.storageKey > b.storageKey ? 1 : 0,
  );
  for (const object of sorted) {
    await lockStorageKey(tx, object.storageKey);
    if (await isStorageKeyReferenced(tx, object.storageKey)) continue;
    await storage.remove(object.storageKey);
    await storage.remove(previewKey(object.sha256));
    await storage.removeTree(derivedImagesPrefix(object.sha256));
    released++;
  }
  return released;
}

/**
 * For a writer about to reference bytes it stored before its transaction: holds the key's lock and
 * checks the bytes are still there (a permanent delete may have taken them in between). With
 * `rewrite`, missing bytes are written again; without, the write fails and can be retried.
 */
export async function pinStoredBytes(tx: UnitOfWork, storage: Storage, key: string, rewrite?: () => Promise<void>): Promise<void> {
  await lockStorageKey(tx, key);
  if (await storage.exists(key)) return;
  if (!rewrite) throw new DomainError('write_conflict', 'Stored bytes were removed while the request ran; send it again');
  await rewrite();
}

/** pinStoredBytes for several keys, in one order (sorted), so two writers never wait on each other in a circle. */
export async function pinAllStoredBytes(tx: UnitOfWork, storage: Storage, keys: readonly string[]): Promise<void> {
  for (const key of [...new Set(keys)].sort()) await pinStoredBytes(tx, storage, key);
}

/**
 * In a transaction of its own, after the rows that named them are gone (a purge, a discarded
 * pending inbound, a failed write): removes the bytes nothing references any more; how many.
 */
export async function releaseBytes(op: UnitOfWork, storage: Storage, objects: readonly StoredBytes[]): Promise<number> {
  if (objects.length === 0) return 0;
  return inTransaction(op, (tx) => releaseUnreferencedBytes(tx, storage, objects));
}
