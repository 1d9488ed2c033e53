import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';

/** One entry of a streamed ZIP: its name, its exact size, and its bytes opened only when the archive reaches it. */
export interface ZipEntry {
  name: string;
  size: number;
  open: () => Promise<Readable | null>;
}

/**
 * A ZIP archive streamed entry by entry (constant memory, no temporary archive, one file open at a
 * time). Entries are stored, not deflated: media files are already compressed, and stored entries
 * of known size give the archive's exact length up front, so the response carries Content-Length
 * and a client can tell a cut-off download from a complete one.
 */
export async function zipStream(entries: ZipEntry[], modifiedAt: Date): Promise<{ stream: Readable; length: number | null }> {
  const zip = new ZipFile();
  for (const entry of entries) {
    zip.addReadStreamLazy(entry.name, { size: entry.size, compress: false, mtime: modifiedAt }, (deliver: (error: Error | null, stream: NodeJS.ReadableStream) => void) => {
      entry.open().then(
        (stream) => (stream ? deliver(null, stream) : deliver(new Error(`the bytes of ${entry.name} are gone`), undefined as never)),
        (error: Error) => deliver(error, undefined as never),
      );
    });
  }
  // yazl passes the archive's final size to this callback (its typings omit the parameter)
  const length = await new Promise<number>((resolve) => zip.end(undefined, resolve as () => void));
  // a file that vanishes or changes size mid-archive: the response is cut, which the client sees against Content-Length
  const stream = zip.outputStream as Readable;
  zip.on('error', (error: Error) => stream.destroy(error));
  return { stream, length: length >= 0 ? length : null };
}
