import { Readable, type Writable } from 'node:stream';
import { crc32 } from 'node:zlib';
import type { ObjectReader } from '../core/assets/storage/storage.ts';

/**
 * One entry of a streamed ZIP: its name, its exact size, and its bytes opened only when the archive
 * reaches it (a reader filling the writer's buffers, or a stream), null when they are gone.
 */
export interface ZipEntry {
  name: string;
  size: number;
  open: () => Promise<ObjectReader | Readable | null>;
}

/*
 * A stored-only ZIP writer (PKWARE APPNOTE 6.3: local headers with a data descriptor, a central
 * directory, the end record). Written here rather than taken from yazl because yazl computes each
 * entry's CRC-32 with a JavaScript byte loop that cost 3.9 s per GiB, more than reading the files
 * (bench/RESULTS-catalogue-reads.md); node:zlib's native crc32 costs 0.8 s. Entries are never
 * deflated, so the format needed is small: no ZIP64 (a download is at most 2 GiB, so every size and
 * offset fits in 32 bits), no compression, UTF-8 names (flag bit 11), and the Info-ZIP extended
 * timestamp (0x5455) beside the DOS time, so readers show the modification time in their own zone
 * (the DOS time has none) as they did with yazl.
 */

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
/** Bit 3: CRC-32 and sizes follow the data (known only after streaming it); bit 11: the name is UTF-8. */
const FLAGS = 0x0008 | 0x0800;
/** 2.0: stored entries with a data descriptor. */
const VERSION_NEEDED = 20;
/** Made by Unix (3) with 2.0, so the external attributes carry a Unix mode. */
const VERSION_MADE_BY = (3 << 8) | 20;
/** A regular file, rw-r--r--, in the high 16 bits of the external attributes. */
const EXTERNAL_ATTRIBUTES = (0o100644 << 16) >>> 0;
const LOCAL_HEADER_SIZE = 30;
const DATA_DESCRIPTOR_SIZE = 16;
const CENTRAL_HEADER_SIZE = 46;
const END_SIZE = 22;
/** The extended timestamp extra field: header id, data size 5, flags (bit 0: mtime), mtime in Unix seconds. */
const TIMESTAMP_EXTRA_SIZE = 9;
const MAX_32 = 0xffffffff;

interface Stamp {
  /** MS-DOS date and time: 2-second resolution, the server's local time, no zone. */
  date: number;
  time: number;
  /** The Info-ZIP extended timestamp extra field carrying the same instant in UTC. */
  extra: Buffer;
}

function stampOf(at: Date): Stamp {
  const year = Math.min(Math.max(at.getFullYear(), 1980), 2107);
  const extra = Buffer.alloc(TIMESTAMP_EXTRA_SIZE);
  extra.writeUInt16LE(0x5455, 0);
  extra.writeUInt16LE(5, 2);
  extra.writeUInt8(1, 4);
  extra.writeUInt32LE(Math.max(0, Math.floor(at.getTime() / 1000)), 5);
  return {
    date: ((year - 1980) << 9) | ((at.getMonth() + 1) << 5) | at.getDate(),
    time: (at.getHours() << 11) | (at.getMinutes() << 5) | Math.floor(at.getSeconds() / 2),
    extra,
  };
}

interface Written {
  name: Buffer;
  crc: number;
  size: number;
  offset: number;
}

function localHeader(name: Buffer, stamp: Stamp): Buffer {
  const header = Buffer.alloc(LOCAL_HEADER_SIZE);
  header.writeUInt32LE(LOCAL_HEADER, 0);
  header.writeUInt16LE(VERSION_NEEDED, 4);
  header.writeUInt16LE(FLAGS, 6);
  header.writeUInt16LE(0, 8); // stored
  header.writeUInt16LE(stamp.time, 10);
  header.writeUInt16LE(stamp.date, 12);
  // CRC-32 and sizes (14-25) stay zero: they follow in the data descriptor
  header.writeUInt16LE(name.length, 26);
  header.writeUInt16LE(stamp.extra.length, 28);
  return Buffer.concat([header, name, stamp.extra]);
}

function dataDescriptor(entry: Written): Buffer {
  const descriptor = Buffer.alloc(DATA_DESCRIPTOR_SIZE);
  descriptor.writeUInt32LE(DATA_DESCRIPTOR, 0);
  descriptor.writeUInt32LE(entry.crc, 4);
  descriptor.writeUInt32LE(entry.size, 8);
  descriptor.writeUInt32LE(entry.size, 12);
  return descriptor;
}

function centralHeader(entry: Written, stamp: Stamp): Buffer {
  const header = Buffer.alloc(CENTRAL_HEADER_SIZE);
  header.writeUInt32LE(CENTRAL_HEADER, 0);
  header.writeUInt16LE(VERSION_MADE_BY, 4);
  header.writeUInt16LE(VERSION_NEEDED, 6);
  header.writeUInt16LE(FLAGS, 8);
  header.writeUInt16LE(0, 10); // stored
  header.writeUInt16LE(stamp.time, 12);
  header.writeUInt16LE(stamp.date, 14);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(entry.size, 20);
  header.writeUInt32LE(entry.size, 24);
  header.writeUInt16LE(entry.name.length, 28);
  header.writeUInt16LE(stamp.extra.length, 30);
  // comment length, disk number start, internal attributes (32-37) stay zero
  header.writeUInt32LE(EXTERNAL_ATTRIBUTES, 38);
  header.writeUInt32LE(entry.offset, 42);
  return Buffer.concat([header, entry.name, stamp.extra]);
}

function endOfCentralDirectory(count: number, directorySize: number, directoryOffset: number): Buffer {
  const end = Buffer.alloc(END_SIZE);
  end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  // disk numbers (4-7) stay zero
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directorySize, 12);
  end.writeUInt32LE(directoryOffset, 16);
  // no comment (20-21)
  return end;
}

/** The archive's exact length, known before any byte is read: headers, data and descriptors are all of known size. */
function archiveLength(entries: { name: Buffer; size: number }[]): number {
  let length = END_SIZE;
  for (const entry of entries) {
    length += LOCAL_HEADER_SIZE + DATA_DESCRIPTOR_SIZE + CENTRAL_HEADER_SIZE + 2 * (entry.name.length + TIMESTAMP_EXTRA_SIZE) + entry.size;
  }
  return length;
}

/** Bytes of an entry are read in chunks of this size, into the buffers of a BufferRing when writing to a response. */
export const ZIP_CHUNK_BYTES = 1024 * 1024;
/** How many chunks of one download may be read ahead of the socket: the download's memory is RING x CHUNK. */
export const ZIP_RING_SIZE = 4;

/** Where an entry's reader gets the next buffer to fill, and gives back one it filled for nothing. */
interface BufferSource {
  take(): Promise<Buffer>;
  /** A buffer if one is free now, else null. */
  tryTake(): Buffer | null;
  give(buffer: Buffer): void;
}

/** A new buffer per chunk: for a consumer (a Readable's reader) that may keep the chunks it is given. */
const freshBuffers: BufferSource = {
  take: async () => Buffer.allocUnsafe(ZIP_CHUNK_BYTES),
  tryTake: () => Buffer.allocUnsafe(ZIP_CHUNK_BYTES),
  give: () => {},
};

/**
 * A few buffers reused for the whole download: a chunk's buffer is filled again only after the
 * response has handed its bytes to the kernel, so a slow client holds the reader back instead of
 * the process buffering the archive (backpressure), and nothing is allocated per chunk.
 */
class BufferRing implements BufferSource {
  private readonly free: Buffer[] = [];
  private readonly byArray = new Map<ArrayBufferLike, Buffer>();
  private readonly waiting: Array<{ resolve: (buffer: Buffer) => void; reject: (error: Error) => void }> = [];
  private failure: Error | null = null;

  constructor(count: number, size: number) {
    for (let i = 0; i < count; i++) {
      const buffer = Buffer.allocUnsafeSlow(size);
      this.free.push(buffer);
      this.byArray.set(buffer.buffer, buffer);
    }
  }

  take(): Promise<Buffer> {
    if (this.failure) return Promise.reject(this.failure);
    const buffer = this.free.pop();
    if (buffer) return Promise.resolve(buffer);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  tryTake(): Buffer | null {
    return this.failure ? null : (this.free.pop() ?? null);
  }

  /** Takes back the buffer `chunk` was cut from. */
  give(chunk: Buffer): void {
    const buffer = this.byArray.get(chunk.buffer)!;
    const waiter = this.waiting.shift();
    if (waiter) waiter.resolve(buffer);
    else this.free.push(buffer);
  }

  owns(chunk: Buffer): boolean {
    return this.byArray.has(chunk.buffer);
  }

  /** Stops the reader: whoever waits for a buffer, or asks for one later, gets `error`. */
  fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.failure);
  }
}

const isReader = (source: ObjectReader | Readable): source is ObjectReader => typeof (source as ObjectReader).readInto === 'function';

/**
 * An entry's bytes in order: a stream's chunks, or a reader's reads into buffers from `buffers`,
 * the next read started (when a buffer is free) before the current chunk is handed on, so reading
 * overlaps the CRC-32 and the socket write. One read at a time: the reader reads sequentially.
 * The reader is closed however the archive ends.
 */
async function* chunksOf(source: ObjectReader | Readable, buffers: BufferSource): AsyncGenerator<Buffer> {
  if (!isReader(source)) {
    yield* source as AsyncIterable<Buffer>;
    return;
  }
  const start = (buffer: Buffer) =>
    source.readInto(buffer).then(
      (read) => ({ buffer, read }),
      (e: unknown) => {
        buffers.give(buffer);
        throw e;
      },
    );
  let next: ReturnType<typeof start> | null = null;
  try {
    next = start(await buffers.take());
    for (;;) {
      const { buffer, read } = await next;
      next = null;
      if (read === 0) {
        buffers.give(buffer);
        return;
      }
      const spare = buffers.tryTake();
      if (spare) next = start(spare);
      yield read === buffer.length ? buffer : buffer.subarray(0, read);
      next ??= start(await buffers.take());
    }
  } finally {
    // a read still under way finishes before its file is closed; its buffer goes back unused
    if (next)
      await next.then(
        (unused) => buffers.give(unused.buffer),
        () => {},
      );
    await source.close();
  }
}

async function* archiveBytes(entries: (ZipEntry & { encodedName: Buffer })[], stamp: Stamp, buffers: BufferSource): AsyncGenerator<Buffer> {
  const written: Written[] = [];
  let offset = 0;
  for (const entry of entries) {
    const header = localHeader(entry.encodedName, stamp);
    yield header;
    const source = await entry.open();
    if (!source) throw new Error(`the bytes of ${entry.name} are gone`);
    let crc = 0;
    let size = 0;
    // a file that changed size since it was listed would make Content-Length a lie: cut the response
    // instead, before a byte past the listed size goes out (a grown file could otherwise fill the
    // announced length with a ZIP that has no central directory)
    const changedSize = (seen: number) => new Error(`${entry.name} has ${seen} bytes or more, not the ${entry.size} listed`);
    for await (const chunk of chunksOf(source, buffers)) {
      if (size + chunk.length > entry.size) throw changedSize(size + chunk.length);
      size += chunk.length;
      yield chunk;
      // summed once the chunk is handed to the socket, while the kernel sends it: the buffer is
      // refilled only after this (its next read starts when this generator asks for a chunk)
      crc = crc32(chunk, crc);
    }
    if (size !== entry.size) throw new Error(`${entry.name} has ${size} bytes, not the ${entry.size} listed`);
    const done = { name: entry.encodedName, crc, size, offset };
    written.push(done);
    yield dataDescriptor(done);
    offset += header.length + size + DATA_DESCRIPTOR_SIZE;
  }
  const directory = Buffer.concat(written.map((entry) => centralHeader(entry, stamp)));
  yield directory;
  yield endOfCentralDirectory(written.length, directory.length, offset);
}

/**
 * Writes the archive's pieces to `out`, each ring buffer going back to the ring once `out` has
 * written it. Resolves when `out` has finished; rejects (having stopped reading) when a file fails
 * or `out` closes first, and the caller destroys `out` so the client sees a cut transfer.
 */
async function writeArchive(pieces: AsyncGenerator<Buffer>, ring: BufferRing, out: Writable): Promise<void> {
  let failure: Error | null = null;
  let stopped!: () => void;
  const stop = new Promise<void>((resolve) => (stopped = resolve));
  const fail = (error: Error) => {
    failure ??= error;
    ring.fail(failure);
    stopped();
  };
  const onClose = () => {
    if (!out.writableFinished) fail(new Error('the connection closed before the archive was complete'));
  };
  out.on('close', onClose);
  try {
    for await (const piece of pieces) {
      if (failure) throw failure;
      const leased = ring.owns(piece);
      let flushed!: () => void;
      const written = leased ? null : new Promise<void>((resolve) => (flushed = resolve));
      const accepted = out.write(piece, (error) => {
        if (leased) ring.give(piece);
        else flushed();
        if (error) fail(error);
      });
      // a stream's chunks (not the ring's) wait for the socket as pipe() would
      if (written && !accepted) await Promise.race([written, stop]);
    }
    if (failure) throw failure;
    await new Promise<void>((resolve, reject) => {
      out.end(() => resolve());
      void stop.then(() => reject(failure!));
    });
  } finally {
    out.off('close', onClose);
    ring.fail(new Error('the archive is finished'));
  }
}

function prepare(entries: ZipEntry[]): { encoded: (ZipEntry & { encodedName: Buffer })[]; length: number } {
  const encoded = entries.map((entry) => ({ ...entry, encodedName: Buffer.from(entry.name, 'utf8') }));
  const length = archiveLength(encoded.map((entry) => ({ name: entry.encodedName, size: entry.size })));
  if (length > MAX_32 || encoded.length > 0xffff || encoded.some((entry) => entry.encodedName.length > 0xffff)) {
    throw new Error('the archive needs ZIP64, which this writer does not produce');
  }
  return { encoded, length };
}

/**
 * A ZIP archive streamed entry by entry (constant memory, no temporary archive, one file open at a
 * time). Entries are stored, not deflated: media files are already compressed, and stored entries
 * of known size give the archive's exact length up front, so the response carries Content-Length
 * and a client can tell a cut-off download from a complete one. A file that is gone or changed
 * size mid-archive destroys the stream, which cuts the response.
 */
export async function zipStream(entries: ZipEntry[], modifiedAt: Date): Promise<{ stream: Readable; length: number }> {
  const { encoded, length } = prepare(entries);
  return { stream: Readable.from(archiveBytes(encoded, stampOf(modifiedAt), freshBuffers), { objectMode: false }), length };
}

/**
 * The same archive written straight to a response (or any Writable), its files read into a ring
 * of ZIP_RING_SIZE buffers reused for the whole transfer: memory per download is bounded by the
 * ring whatever the client's speed, and no buffer is allocated per chunk. `write` resolves when
 * the last byte is handed to `out`, and rejects when a file is gone or changed size or `out`
 * closed early; `out` is then left for the caller to destroy.
 */
export function zipArchive(entries: ZipEntry[], modifiedAt: Date): { length: number; write(out: Writable): Promise<void> } {
  const { encoded, length } = prepare(entries);
  return {
    length,
    write(out) {
      const ring = new BufferRing(ZIP_RING_SIZE, ZIP_CHUNK_BYTES);
      return writeArchive(archiveBytes(encoded, stampOf(modifiedAt), ring), ring, out);
    },
  };
}
