import { copyFile, link, mkdir, open, rename, rm, stat, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { AppendedPiece, AppendPoint } from './appends.ts';

/** Writes are gathered up to this size: a write call per 64 KiB network chunk costs more, and larger batches kept chunks alive long enough to cost full GCs (bench/RESULTS-uploads.md). */
const WRITE_BATCH = 512 * 1024;

/**
 * Local disk: an object written in pieces is one file, opened at each piece and written from the
 * offset the caller recorded. Bytes past that offset (a piece not recorded: a process that died
 * mid-piece, a checksum mismatch) are cut off first, so they never become part of the object.
 */
export async function appendToFile(path: string, from: AppendPoint, source: AsyncIterable<Buffer>): Promise<AppendedPiece> {
  await mkdir(dirname(path), { recursive: true });
  if (from.offset > 0) await ownFile(path);
  // the first piece makes the file; a later one finds it (ENOENT then: its bytes are gone)
  const handle = await open(path, from.offset === 0 ? 'w' : 'r+');
  let written = 0;
  try {
    if (from.offset > 0) await handle.truncate(from.offset);
    let batch: Buffer[] = [];
    let batched = 0;
    const flush = async () => {
      let position = from.offset + written;
      for (let done = 0; done < batched; ) {
        const { bytesWritten } = await handle.writev(batch, position);
        done += bytesWritten;
        position += bytesWritten;
        if (done < batched) batch = remainder(batch, bytesWritten);
      }
      written += batched;
      batch = [];
      batched = 0;
    };
    for await (const chunk of source) {
      batch.push(chunk);
      batched += chunk.length;
      if (batched >= WRITE_BATCH) await flush();
    }
    await flush();
  } catch (e) {
    await handle.close().catch(() => {});
    await cutBack(path, from.offset);
    throw e;
  }
  await handle.close();
  const cut = () => cutBack(path, from.offset);
  return { written, state: {}, recorded: async () => {}, drop: cut };
}

/** The buffers left of a batch once `n` bytes of it were written (a short writev). */
function remainder(batch: Buffer[], n: number): Buffer[] {
  const left: Buffer[] = [];
  let skip = n;
  for (const buffer of batch) {
    if (skip >= buffer.length) skip -= buffer.length;
    else {
      left.push(skip > 0 ? buffer.subarray(skip) : buffer);
      skip = 0;
    }
  }
  return left;
}

/** Cuts an object being written back to its recorded bytes; the first piece's file goes altogether. */
async function cutBack(path: string, offset: number): Promise<void> {
  if (offset === 0) await rm(path, { force: true });
  else
    await ownFile(path)
      .then(() => truncate(path, offset))
      .catch(() => {});
}

/**
 * Makes the file the only name of its bytes before they change: a completed object placed by a
 * link shares them with its content-addressed key, and a placement that failed afterwards (its
 * transaction, the process) leaves the upload to be continued. Then the bytes are copied first,
 * so the placed object never changes.
 */
async function ownFile(path: string): Promise<void> {
  const info = await stat(path).catch(() => null);
  if (!info || info.nlink <= 1) return;
  const copy = `${path}.own.tmp`;
  await copyFile(path, copy);
  await rename(copy, path);
}

/** Checks the file holds the object's `length` bytes: its pieces are the object already. */
export async function completeFile(path: string, length: number): Promise<void> {
  const info = await stat(path);
  if (info.size !== length) throw new Error(`the appended object ${path} has ${info.size} bytes, not ${length}`);
}

/**
 * Places `from` under `to` by a hard link (no byte written again). A link never replaces an
 * existing file, so two placements of the same bytes at once cannot overwrite each other, and the
 * one that finds the object there learns it added nothing (EEXIST): false, `to` unchanged.
 */
export async function linkNew(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'ENOENT') throw e;
  }
  // the object's prefix directory does not exist yet
  await mkdir(dirname(to), { recursive: true });
  return link(from, to).then(
    () => true,
    (again: NodeJS.ErrnoException) => {
      if (again.code === 'EEXIST') return false;
      throw again;
    },
  );
}
