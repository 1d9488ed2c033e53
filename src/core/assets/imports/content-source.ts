import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { AbstractTokenizer, EndOfStreamError, fromBuffer, fromFile, type IReadChunkOptions, type ITokenizer } from 'strtok3';
import type { Storage } from '../storage/storage.ts';

/**
 * The bytes a probe reads (probe.ts): a file named by the operator (`asset import`), or an object
 * in storage (an upload), read where it lies: through a random-access tokenizer (file-type,
 * music-metadata read only what they need), and by path or in memory for sharp.
 */
export interface ContentSource {
  size: number;
  /** The file's path when the bytes are a file on this machine (an import names its file; an object on local disk). */
  path: string | null;
  /** A random-access tokenizer over the bytes; the caller closes it. */
  tokenizer(): Promise<ITokenizer>;
  /** The first `n` bytes, fewer when the content is shorter. */
  head(n: number): Promise<Buffer>;
  /** What sharp reads: a path, or the bytes themselves when they are small (an object store). */
  forSharp(): Promise<string | Buffer>;
  /** Removes what reading left behind (a scratch copy for sharp). */
  close(): Promise<void>;
}

/** An object up to this size is handed to sharp in memory; a larger one from a scratch file (sharp would read it whole anyway). */
const SHARP_IN_MEMORY_MAX = 64 * 1024 * 1024;
/** How much a tokenizer fetches at once: file-type and music-metadata read small tokens close together. */
const WINDOW = 1024 * 1024;

/** A local file: what `asset import --file` probes. */
export async function fileSource(path: string): Promise<ContentSource> {
  const { size } = await stat(path);
  return {
    size,
    path,
    tokenizer: () => fromFile(path),
    head: async (n) => {
      const handle = await open(path, 'r');
      try {
        const buffer = Buffer.alloc(Math.min(n, size));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
    forSharp: async () => path,
    close: async () => {},
  };
}

/** An object in storage, read where it lies: by path on local disk, by ranges on an object store. */
export function storedSource(storage: Storage, key: string, size: number): ContentSource {
  const path = storage.localPath(key);
  if (path !== null) {
    return { ...lazyFileSource(path, size), size, path };
  }
  if (size <= WINDOW) {
    // a small object is read once, in one request, and probed from memory
    let bytes: Promise<Buffer> | null = null;
    const whole = () => (bytes ??= readRange(storage, key, 0, size));
    return {
      size,
      path: null,
      tokenizer: async () => fromBuffer(await whole()),
      head: async (n) => (await whole()).subarray(0, n),
      forSharp: whole,
      close: async () => {},
    };
  }
  let scratch: string | null = null;
  return {
    size,
    path: null,
    tokenizer: async () => new StoredTokenizer(storage, key, size),
    head: (n) => readRange(storage, key, 0, Math.min(n, size)),
    forSharp: async () => {
      if (size <= SHARP_IN_MEMORY_MAX) return readRange(storage, key, 0, size);
      scratch ??= await copyToScratch(storage, key);
      return scratch;
    },
    close: async () => {
      if (scratch) await rm(scratch, { force: true });
    },
  };
}

function lazyFileSource(path: string, size: number): Omit<ContentSource, 'size' | 'path'> {
  const file = fileSource(path);
  return {
    tokenizer: async () => (await file).tokenizer(),
    head: async (n) => (size === 0 ? Buffer.alloc(0) : (await file).head(n)),
    forSharp: async () => path,
    close: async () => {},
  };
}

async function copyToScratch(storage: Storage, key: string): Promise<string> {
  const path = join(tmpdir(), `shelf-probe-${randomUUID()}`);
  const opened = await storage.open(key);
  if (!opened) throw new Error(`${key} is missing from storage`);
  await pipeline(opened.stream, createWriteStream(path));
  return path;
}

/** Bytes `start` to `start + length` of an object, in one buffer. */
async function readRange(storage: Storage, key: string, start: number, length: number): Promise<Buffer> {
  if (length === 0) return Buffer.alloc(0);
  const opened = await storage.open(key, { start, end: start + length - 1 });
  if (!opened) throw new Error(`${key} is missing from storage`);
  const into = Buffer.allocUnsafe(length);
  let filled = 0;
  for await (const chunk of opened.stream as AsyncIterable<Buffer>) filled += chunk.copy(into, filled);
  return into.subarray(0, filled);
}

/**
 * strtok3's random-access tokenizer over an object in storage: reads are served from a window
 * fetched with one ranged read (at least WINDOW bytes), so parsers that read many small tokens
 * near each other cost few requests, and jumps (an MP4's index at the end) cost one each.
 */
class StoredTokenizer extends AbstractTokenizer {
  fileInfo: { size: number };
  private readonly storage: Storage;
  private readonly key: string;
  private window: { start: number; bytes: Buffer } = { start: 0, bytes: Buffer.alloc(0) };

  constructor(storage: Storage, key: string, size: number) {
    super();
    this.storage = storage;
    this.key = key;
    this.fileInfo = { size };
  }

  supportsRandomAccess(): boolean {
    return true;
  }

  setPosition(position: number): void {
    this.position = position;
  }

  async readBuffer(target: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    const wanted = this.normalizeOptions(target, options);
    this.position = wanted.position;
    const n = await this.readAt(target, wanted);
    this.position += n;
    return n;
  }

  async peekBuffer(target: Uint8Array, options?: IReadChunkOptions): Promise<number> {
    return this.readAt(target, this.normalizeOptions(target, options));
  }

  private async readAt(target: Uint8Array, wanted: { position: number; length: number; mayBeLess?: boolean }): Promise<number> {
    const { size } = this.fileInfo;
    let done = 0;
    while (done < wanted.length && wanted.position + done < size) {
      const at = wanted.position + done;
      const { start, bytes } = this.window;
      if (at < start || at >= start + bytes.length) {
        const length = Math.min(size - at, Math.max(WINDOW, wanted.length - done));
        this.window = { start: at, bytes: await readRange(this.storage, this.key, at, length) };
        if (this.window.bytes.length === 0) break;
        continue;
      }
      const piece = bytes.subarray(at - start, at - start + (wanted.length - done));
      target.set(piece, done);
      done += piece.length;
    }
    if (!wanted.mayBeLess && done < wanted.length) throw new EndOfStreamError();
    return done;
  }
}
