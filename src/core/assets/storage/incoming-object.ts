import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { linkNew } from './local-appends.ts';

/**
 * A new object written as its bytes arrive, before its key is known: content-addressed keys name
 * the bytes' sha256, which is known only after the last byte. The bytes go straight into storage
 * under a unique name and are placed under their key once, without being copied or read again.
 */
export interface IncomingObject {
  /** Appends bytes; when it returns a promise, wait for it before writing more (back-pressure). */
  write(chunk: Buffer): void | Promise<void>;
  /**
   * Ends the write and places the bytes under `key`: true when they are the object now, false when
   * an object was already there (it stays as it was; these bytes are dropped).
   */
  place(key: string): Promise<boolean>;
  /** Drops what was written and not placed (a failed download); nothing of it stays. Safe to call more than once. */
  discard(): Promise<void>;
}

/**
 * A large write buffer: with the default 16 KiB, waiting for drains made a 10 MB download take
 * half again as long (bench/RESULTS-approvals.md).
 */
const WRITE_BUFFER = 4 * 1024 * 1024;

/**
 * Local disk: the bytes go to `<incomingDir>/<uuid>.part`, on the same file system as the objects,
 * and are placed by a hard link to the object's path and the removal of the part name. A link never
 * replaces an existing file, so two requests placing the same bytes at once cannot overwrite each
 * other, and the one that finds the object there learns it added nothing (EEXIST), without a
 * separate look first. Readers never see half an object: the object's path appears complete.
 */
export class LocalIncomingObject implements IncomingObject {
  private readonly partPath: string;
  private readonly pathOf: (key: string) => string;
  private readonly file: WriteStream;
  /** Set once the part file is gone (placed or discarded). */
  private done = false;

  private constructor(partPath: string, file: WriteStream, pathOf: (key: string) => string) {
    this.partPath = partPath;
    this.pathOf = pathOf;
    this.file = file;
    // an error surfaces at the next write or at place; this keeps it from being unhandled meanwhile
    this.file.on('error', () => {});
  }

  /** Opens a new part file in `incomingDir`, creating the directory when it is missing; `pathOf` maps a key to its object's path. */
  static async create(incomingDir: string, pathOf: (key: string) => string): Promise<LocalIncomingObject> {
    const partPath = join(incomingDir, `${randomUUID()}.part`);
    // opened before the first byte arrives, so a missing directory is made here and not mid-download
    let file = await opened(partPath);
    if (!file) {
      await mkdir(incomingDir, { recursive: true });
      file = (await opened(partPath))!;
    }
    return new LocalIncomingObject(partPath, file, pathOf);
  }

  write(chunk: Buffer): void | Promise<void> {
    if (this.file.errored) throw this.file.errored;
    if (!this.file.write(chunk)) {
      return new Promise<void>((resolve, reject) => {
        const drained = () => {
          this.file.off('error', failed);
          resolve();
        };
        const failed = (e: Error) => {
          this.file.off('drain', drained);
          reject(e);
        };
        this.file.once('drain', drained).once('error', failed);
      });
    }
  }

  async place(key: string): Promise<boolean> {
    if (this.done) throw new Error('the incoming object was already placed or discarded');
    try {
      const objectPath = this.pathOf(key);
      await new Promise<void>((resolve, reject) => this.file.end((e?: Error | null) => (e ? reject(e) : resolve())));
      const placed = await linkNew(this.partPath, objectPath);
      await rm(this.partPath, { force: true });
      this.done = true;
      return placed;
    } catch (e) {
      await this.discard();
      throw e;
    }
  }

  async discard(): Promise<void> {
    if (this.done) return;
    this.done = true;
    if (!this.file.closed) {
      await new Promise<void>((resolve) => {
        this.file.once('close', () => resolve());
        this.file.destroy();
      });
    }
    await rm(this.partPath, { force: true });
  }
}

/** A new file's write stream once it is open; null when its directory does not exist (ENOENT). */
async function opened(path: string): Promise<WriteStream | null> {
  const file = createWriteStream(path, { flags: 'wx', highWaterMark: WRITE_BUFFER });
  try {
    await once(file, 'open');
    return file;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}
