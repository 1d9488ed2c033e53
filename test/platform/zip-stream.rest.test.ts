import { randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { type Entry, fromBuffer, type ZipFile } from 'yauzl';
import type { ObjectReader } from '../../src/core/assets/storage/storage.ts';
import { ZIP_CHUNK_BYTES, ZIP_RING_SIZE, type ZipEntry, zipArchive, zipStream } from '../../src/rest/zip-stream.ts';

/** Everything a stream yields, or the error that destroyed it. */
async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The entries as an independent reader (yauzl, which checks sizes and offsets) sees them. */
interface ReadEntry {
  name: string;
  crc32: number;
  size: number;
  bytes: Buffer;
  mtime: Date;
  /** The central directory's extended timestamp field, when there is one. */
  timestampField: { id: number; mtimeSeconds: number } | null;
}

async function readArchive(bytes: Buffer): Promise<ReadEntry[]> {
  const zip = await new Promise<ZipFile>((resolve, reject) =>
    fromBuffer(bytes, { lazyEntries: true, validateEntrySizes: true, strictFileNames: true }, (e, z) => (e ? reject(e) : resolve(z))),
  );
  const entries: ReadEntry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', resolve);
    zip.on('entry', (entry: Entry) => {
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        drain(stream).then((content) => {
          const field = entry.extraFields.find((f) => f.id === 0x5455);
          const timestampField = field ? { id: field.id, mtimeSeconds: field.data.readUInt32LE(1) } : null;
          entries.push({
            name: entry.fileName,
            crc32: entry.crc32,
            size: entry.uncompressedSize,
            bytes: content,
            mtime: entry.getLastModDate(),
            timestampField,
          });
          zip.readEntry();
        }, reject);
      });
    });
    zip.readEntry();
  });
  return entries;
}

const entryOf = (name: string, bytes: Buffer, chunk = 7_000): ZipEntry => ({
  name,
  size: bytes.length,
  // several chunks per entry, as a file read from disk arrives
  open: async () => Readable.from(Array.from({ length: Math.ceil(bytes.length / chunk) }, (_, i) => bytes.subarray(i * chunk, (i + 1) * chunk))),
});

describe('ZIP downloads are stored-entry archives any reader opens (docs/products.md "Downloads")', () => {
  it('writes each entry with its bytes, its CRC-32 and its size, UTF-8 names, and exactly the length announced up front', async () => {
    const files = [
      { name: 'photo.jpg', bytes: randomBytes(100_000) },
      { name: 'empty.txt', bytes: Buffer.alloc(0) },
      { name: 'Äpfel und Birnen – 苹果.png', bytes: randomBytes(33) },
    ];
    const modifiedAt = new Date(2026, 10, 25, 14, 30, 44);
    const zip = await zipStream(
      files.map((f) => entryOf(f.name, f.bytes)),
      modifiedAt,
    );
    const archive = await drain(zip.stream);
    expect(archive.length).toBe(zip.length);
    const entries = await readArchive(archive);
    expect(entries.map((e) => e.name)).toEqual(files.map((f) => f.name));
    for (const [i, entry] of entries.entries()) {
      expect(entry.bytes.equals(files[i]!.bytes), entry.name).toBe(true);
      expect(entry.size).toBe(files[i]!.bytes.length);
      expect(entry.crc32).toBe(crc32(files[i]!.bytes));
      // the extended timestamp field carries the instant in UTC, to the second (yauzl prefers it to the DOS time)
      expect(entry.mtime.getTime()).toBe(modifiedAt.getTime());
      expect(entry.timestampField).toEqual({ id: 0x5455, mtimeSeconds: modifiedAt.getTime() / 1000 });
    }
  });

  it('writes an archive with no entries that a reader opens as empty', async () => {
    const zip = await zipStream([], new Date());
    const archive = await drain(zip.stream);
    expect(archive.length).toBe(zip.length);
    expect(await readArchive(archive)).toEqual([]);
  });

  it("cuts the archive (the stream fails) when an entry's bytes are gone, rather than send a complete-looking ZIP", async () => {
    const zip = await zipStream([entryOf('a.bin', randomBytes(10)), { name: 'gone.bin', size: 5, open: async () => null }], new Date());
    await expect(drain(zip.stream)).rejects.toThrow('the bytes of gone.bin are gone');
  });

  it('cuts the archive when an entry has fewer bytes than listed, so Content-Length never lies', async () => {
    const zip = await zipStream([{ ...entryOf('shrunk.bin', randomBytes(500)), size: 999 }], new Date());
    await expect(drain(zip.stream)).rejects.toThrow('shrunk.bin has 500 bytes, not the 999 listed');
  });

  it('cuts the archive before a grown entry sends one byte past its listed size, even when the growth is larger than the rest of the archive', async () => {
    const zip = await zipStream([{ name: 'grown.bin', size: 10, open: async () => Readable.from([randomBytes(4), randomBytes(196)]) }], new Date());
    const received: Buffer[] = [];
    const failure = await new Promise<Error>((resolve) => {
      zip.stream.on('data', (chunk: Buffer) => received.push(chunk));
      zip.stream.on('error', resolve);
      zip.stream.on('end', () => resolve(new Error('ended without failing')));
    });
    expect(failure.message).toBe('grown.bin has 200 bytes or more, not the 10 listed');
    const sent = Buffer.concat(received).length;
    // the local header with its name and timestamp field, then only the 4 bytes within the listed size
    expect(sent).toBe(30 + 'grown.bin'.length + 9 + 4);
    expect(sent).toBeLessThan(zip.length);
  });

  it('opens one entry at a time, only when the archive reaches it', async () => {
    const opened: string[] = [];
    const tracked = (name: string): ZipEntry => ({
      ...entryOf(name, Buffer.from(name)),
      open: async () => (opened.push(name), Readable.from([Buffer.from(name)])),
    });
    const zip = await zipStream([tracked('one'), tracked('two')], new Date());
    expect(opened).toEqual([]);
    const stream = zip.stream;
    const content = await text(stream);
    expect(opened).toEqual(['one', 'two']);
    expect(content).toContain('one');
  });
});

/** A stored file as the storage's reader serves it, counting its reads and noting when it is closed. */
function readerOf(bytes: Buffer): { reader: ObjectReader; log: { reads: number; closed: boolean } } {
  const log = { reads: 0, closed: false };
  let at = 0;
  const reader: ObjectReader = {
    size: bytes.length,
    readInto: async (into) => {
      log.reads++;
      const read = bytes.copy(into, 0, at, Math.min(bytes.length, at + into.length));
      at += read;
      return read;
    },
    close: async () => {
      log.closed = true;
    },
  };
  return { reader, log };
}

/**
 * A response as the writer sees it: like a socket, it takes a chunk's bytes only when it
 * acknowledges the write, either on the next turn (`auto`) or when the test calls `ack`.
 */
class AckingSink extends Writable {
  readonly received: Buffer[] = [];
  readonly held: Array<() => void> = [];
  private readonly auto: boolean;
  constructor(auto: boolean) {
    super();
    this.auto = auto;
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const take = () => {
      this.received.push(Buffer.from(chunk));
      done();
    };
    if (this.auto) setImmediate(take);
    else this.held.push(take);
  }
  ack(): void {
    this.held.shift()!();
  }
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise(setImmediate);
};

describe('ZIP downloads written to the response (docs/products.md "Downloads")', () => {
  it('writes the same archive as the stream, byte for byte, though it refills its few buffers as each write is taken', async () => {
    const files = [
      { name: 'large.bin', bytes: randomBytes(3 * ZIP_CHUNK_BYTES + 12_345) },
      { name: 'empty.txt', bytes: Buffer.alloc(0) },
      { name: 'exact.bin', bytes: randomBytes(ZIP_CHUNK_BYTES) },
    ];
    const modifiedAt = new Date(2026, 10, 26, 9, 15, 2);
    const entries = () => files.map((f) => ({ name: f.name, size: f.bytes.length, open: async () => readerOf(f.bytes).reader }));
    const sink = new AckingSink(true);
    const zip = zipArchive(entries(), modifiedAt);
    await zip.write(sink);
    const written = Buffer.concat(sink.received);
    expect(written.length).toBe(zip.length);
    expect(written.equals(await drain((await zipStream(entries(), modifiedAt)).stream))).toBe(true);
    const read = await readArchive(written);
    expect(read.map((e) => [e.name, e.crc32])).toEqual(files.map((f) => [f.name, crc32(f.bytes)]));
    for (const [i, entry] of read.entries()) expect(entry.bytes.equals(files[i]!.bytes), entry.name).toBe(true);
  });

  it(`reads no more than ${ZIP_RING_SIZE} chunks ahead of a client that takes nothing, and one more per chunk it takes`, async () => {
    const { reader, log } = readerOf(randomBytes(4 * ZIP_RING_SIZE * ZIP_CHUNK_BYTES));
    const sink = new AckingSink(false);
    const writing = zipArchive([{ name: 'big.bin', size: reader.size, open: async () => reader }], new Date()).write(sink);
    await expect.poll(() => log.reads).toBe(ZIP_RING_SIZE);
    await turns(5);
    expect(log.reads).toBe(ZIP_RING_SIZE);
    // the local header, then the first chunk: taking it frees its buffer for the next read
    sink.ack();
    sink.ack();
    await expect.poll(() => log.reads).toBe(ZIP_RING_SIZE + 1);
    await turns(5);
    expect(log.reads).toBe(ZIP_RING_SIZE + 1);
    sink.destroy();
    await expect(writing).rejects.toThrow('the connection closed before the archive was complete');
  });

  it('stops reading and closes the file when the connection closes before the end', async () => {
    const { reader, log } = readerOf(randomBytes(8 * ZIP_CHUNK_BYTES));
    const sink = new AckingSink(false);
    const writing = zipArchive([{ name: 'big.bin', size: reader.size, open: async () => reader }], new Date()).write(sink);
    await expect.poll(() => log.reads).toBe(ZIP_RING_SIZE);
    sink.ack();
    sink.ack();
    expect(sink.received.length).toBe(2);
    sink.destroy();
    await expect(writing).rejects.toThrow('the connection closed before the archive was complete');
    expect(log.closed).toBe(true);
    expect(log.reads).toBeLessThanOrEqual(ZIP_RING_SIZE + 1);
  });

  it('fails before a grown file sends a byte past its listed size, and closes it', async () => {
    const { reader, log } = readerOf(randomBytes(500));
    const sink = new AckingSink(true);
    const writing = zipArchive([{ name: 'grown.bin', size: 10, open: async () => reader }], new Date()).write(sink);
    await expect(writing).rejects.toThrow('grown.bin has 500 bytes or more, not the 10 listed');
    expect(log.closed).toBe(true);
    await expect.poll(() => sink.writableLength).toBe(0);
    expect(Buffer.concat(sink.received).length).toBe(30 + 'grown.bin'.length + 9);
  });
});
