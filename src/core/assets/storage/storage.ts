import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainError } from '../../platform/errors.ts';
import type { AppendedPiece, AppendPoint, AppendState } from './appends.ts';
import { type IncomingObject, LocalIncomingObject } from './incoming-object.ts';
import { appendToFile, completeFile, linkNew } from './local-appends.ts';

export type { AppendedPiece, AppendPoint, AppendState } from './appends.ts';
export type { IncomingObject } from './incoming-object.ts';

/** A stored file opened for reading. */
export interface Opened {
  stream: Readable;
  size: number;
}

/**
 * A stored file read front to back into buffers the caller owns. Streams hand out a new buffer per
 * chunk; a long transfer that reuses a few buffers instead allocates nothing per chunk, which keeps
 * V8 from running a full garbage collection every few dozen MB read (bench/RESULTS-downloads.md).
 */
export interface ObjectReader {
  size: number;
  /** Fills `into` from where the last read stopped; resolves with the bytes read, 0 at the end. */
  readInto(into: Buffer): Promise<number>;
  close(): Promise<void>;
}

/** An object found by `list`. */
export interface ListedObject {
  key: string;
  size: number;
  /** When the object was written. */
  modifiedAt: Date;
}

/**
 * The object store cannot be reached now (down, restarting, overloaded): not the caller's fault.
 * A domain error, so every adapter answers it as `service_unavailable` (503 with Retry-After, in
 * GraphQL `extensions.code`), as when PostgreSQL is down; the store's own error is its `cause`.
 */
export class StorageUnavailableError extends DomainError {
  constructor(cause: unknown) {
    super('service_unavailable', 'The file store is unavailable; retry later');
    this.cause = cause;
  }
}

/** A key as every backend accepts it: relative, slash-separated word characters, dots and dashes, no `.` or `..` part. */
export function checkedKey(key: string): string {
  if (!/^[\w.-]+(\/[\w.-]+)*$/.test(key) || key.split('/').some((part) => part === '..' || part === '.')) {
    throw new Error(`invalid storage key ${JSON.stringify(key)}`);
  }
  return key;
}

/**
 * Where file bytes live. Keys are relative, slash-separated paths chosen by the core
 * (e.g. `objects/ab/cdef...`). Two backends: local disk (LocalDiskStorage, the default) and an S3
 * bucket (S3Storage); `createStorage` picks one from the configuration.
 */
export interface Storage {
  put(key: string, bytes: Buffer): Promise<void>;
  /** Like put, from a stream, so large files never sit in memory. */
  putStream(key: string, source: Readable): Promise<void>;
  /**
   * A new object whose key is known only once its bytes are all written (a download hashed as it
   * streams): written in storage as it arrives, then placed under its key without a copy.
   */
  receive(): Promise<IncomingObject>;
  /**
   * Appends one piece (an upload's PATCH) to the object being written under `key`, where the
   * recorded pieces end (appends.ts); nothing is readable under `key` before `completeAppends`.
   * A source that fails leaves nothing of the piece.
   */
  appendPiece(key: string, from: AppendPoint, source: AsyncIterable<Buffer>): Promise<AppendedPiece>;
  /** Makes the recorded pieces (`state`, `length` bytes in all) the object `key`, readable from then on. */
  completeAppends(key: string, state: AppendState, length: number): Promise<void>;
  /**
   * Places the object `from` under the key `to` too, without writing its bytes again where the
   * store allows (local: a hard link; S3: CopyObject inside the store): true when it did, false
   * when `to` already existed (left as it was: content-addressed keys hold the same bytes).
   */
  placeAs(from: string, to: string): Promise<boolean>;
  /**
   * Where this machine can open the object by path (local disk), for libraries that read files
   * by name and only what they need (libvips); null on an object store. Read only.
   */
  localPath(key: string): string | null;
  /**
   * A stream of the object, or null when it does not exist; with `range`, only bytes start..end
   * (inclusive, within the object: the caller checks them against its size), and `size` is theirs.
   */
  open(key: string, range?: { start: number; end: number }): Promise<Opened | null>;
  /** The object for reading into the caller's buffers, or null when it does not exist; the caller closes it. */
  openReader(key: string): Promise<ObjectReader | null>;
  exists(key: string): Promise<boolean>;
  /** The object's size in bytes, or null when it does not exist. */
  size(key: string): Promise<number | null>;
  /** Every object under a key prefix (all when ''), in key order (bytewise); objects being received are under `incoming/`. */
  list(prefix?: string): AsyncIterable<ListedObject>;
  remove(key: string): Promise<void>;
  /**
   * Removes every object under a key prefix (a content's processed images, an upload's pieces),
   * and any unfinished write under it (S3 multipart uploads); nothing when there are none.
   */
  removeTree(prefix: string): Promise<void>;
  /**
   * A URL the client may GET the object from directly for `expiresInSeconds`, sent with these
   * headers; null when this store serves no such URLs (local disk; S3 unless S3_DOWNLOAD_REDIRECT).
   */
  downloadUrl(key: string, options: { expiresInSeconds: number; contentType: string; contentDisposition: string | null }): Promise<string | null>;
}

/** Local-disk storage under STORAGE_DIR; writes go to a temporary name first so readers never see half a file. */
export class LocalDiskStorage implements Storage {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** Where objects live, for messages and the operator CLI. */
  describe(): string {
    return this.root;
  }

  private pathOf(key: string): string {
    const path = join(this.root, ...checkedKey(key).split('/'));
    if (!path.startsWith(this.root + sep)) throw new Error('storage key escapes the storage root');
    return path;
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${randomUUID()}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, path);
  }

  /** Objects being received live under `incoming/`, beside the objects on the same file system (a link places them). */
  async receive(): Promise<IncomingObject> {
    return LocalIncomingObject.create(join(this.root, 'incoming'), (key) => this.pathOf(key));
  }

  async putStream(key: string, source: Readable): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${randomUUID()}.tmp`;
    try {
      await pipeline(source, createWriteStream(temporary));
      await rename(temporary, path);
    } catch (e) {
      await rm(temporary, { force: true });
      throw e;
    }
  }

  appendPiece(key: string, from: AppendPoint, source: AsyncIterable<Buffer>): Promise<AppendedPiece> {
    return appendToFile(this.pathOf(key), from, source);
  }

  completeAppends(key: string, _state: AppendState, length: number): Promise<void> {
    return completeFile(this.pathOf(key), length);
  }

  placeAs(from: string, to: string): Promise<boolean> {
    return linkNew(this.pathOf(from), this.pathOf(to));
  }

  localPath(key: string): string {
    return this.pathOf(key);
  }

  async open(key: string, range?: { start: number; end: number }): Promise<Opened | null> {
    const path = this.pathOf(key);
    try {
      const info = await stat(path);
      if (range) return { stream: createReadStream(path, range), size: Math.max(0, range.end - range.start + 1) };
      return { stream: createReadStream(path), size: info.size };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async openReader(key: string): Promise<ObjectReader | null> {
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    try {
      const { size } = await handle.stat();
      return {
        size,
        readInto: async (into) => (await handle.read(into, 0, into.length, null)).bytesRead,
        close: () => handle.close(),
      };
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await stat(this.pathOf(key));
      return true;
    } catch {
      return false;
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      const info = await stat(this.pathOf(key));
      return info.isFile() ? info.size : null;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  /** Regular files under the prefix; a write's temporary `*.tmp` file is not an object yet and is left out. */
  async *list(prefix = ''): AsyncGenerator<ListedObject> {
    const root = prefix === '' ? this.root : this.pathOf(prefix);
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(root, { recursive: true, withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    const keys = entries
      .filter((entry) => entry.isFile() && !entry.name.endsWith('.tmp'))
      .map((entry) =>
        join(entry.parentPath, entry.name)
          .slice(this.root.length + 1)
          .split(sep)
          .join('/'),
      )
      // keys are ASCII: code-unit order is byte order, S3's listing order
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const key of keys) {
      const info = await stat(join(this.root, ...key.split('/'))).catch(() => null);
      if (info) yield { key, size: info.size, modifiedAt: info.mtime };
    }
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async removeTree(prefix: string): Promise<void> {
    await rm(this.pathOf(prefix), { recursive: true, force: true });
  }

  /** Local files are served by Shelf itself. */
  async downloadUrl(): Promise<string | null> {
    return null;
  }
}
