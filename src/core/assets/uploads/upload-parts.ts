import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { DomainError } from '../../platform/errors.ts';
import { objectKey } from '../imports/library-import.service.ts';
import type { Storage } from '../storage/storage.ts';
import type { UploadRow } from './uploads.queries.ts';

/*
 * An upload's bytes in the file store (docs/library.md "How an upload is kept"): one part object
 * per PATCH under `uploads/<id>/`, written and read only through `Storage`, so any backend serves.
 */

/** The object under which the `index`-th part of an upload lives. */
export function partKey(uploadId: string, index: number): string {
  return `${partsPrefix(uploadId)}/${String(index).padStart(6, '0')}`;
}

export function partsPrefix(uploadId: string): string {
  return `uploads/${uploadId}`;
}

/** Whether a request's body failed because the client went away (the connection was cut). */
function clientWentAway(body: Readable, e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return (body as IncomingMessage).aborted === true || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}

/**
 * Streams a request body into the part object `key`, hashing as it goes; refuses more than
 * `room` bytes (413, nothing kept). `keepPartial`: when the client goes away, what arrived is
 * the part. A failure of the store is 503 with Retry-After: the client resumes from the offset.
 */
export async function receivePart(storage: Storage, key: string, body: Readable, room: number, hash: Hash | null, keepPartial: boolean): Promise<number> {
  let received = 0;
  let wentAway = false;
  async function* metered(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > room) {
          throw new DomainError('payload_too_large', `The chunk goes past the upload's length: ${room} bytes were left`, undefined, {
            reason: 'past_length',
          });
        }
        hash?.update(chunk);
        yield chunk;
      }
    } catch (e) {
      if (e instanceof DomainError || !clientWentAway(body, e)) throw e;
      wentAway = true;
      if (!keepPartial) throw e;
    }
  }
  try {
    await storage.putStream(key, Readable.from(metered()));
  } catch (e) {
    await storage.remove(key).catch(() => {});
    if (e instanceof DomainError || wentAway) throw e;
    throw new DomainError('service_unavailable', 'The file store did not take the bytes; resume the upload from its offset', undefined, {
      reason: 'storage_unavailable',
    });
  }
  return received;
}

/**
 * Joins the upload's parts, in order, in one pass: into the store as a new object under its
 * content-addressed key (hashed as it streams, placed without a copy: `Storage.receive`), and into
 * the scratch file at `path` that the import's probes read. The import then finds its bytes
 * stored and stores nothing again. Checks the length.
 */
export async function assembleParts(storage: Storage, upload: UploadRow, path: string): Promise<void> {
  const incoming = await storage.receive();
  const scratch = createWriteStream(path, { highWaterMark: 4 * 1024 * 1024 });
  const hash = createHash('sha256');
  let size = 0;
  try {
    for (const [index] of upload.parts.entries()) {
      const opened = await storage.open(partKey(upload.id, index));
      if (!opened) {
        throw new DomainError('service_unavailable', 'A part of the upload is missing from the file store; try again', undefined, {
          reason: 'storage_unavailable',
        });
      }
      for await (const chunk of opened.stream as AsyncIterable<Buffer>) {
        hash.update(chunk);
        size += chunk.length;
        const stored = incoming.write(chunk);
        if (!scratch.write(chunk)) await once(scratch, 'drain');
        if (stored) await stored;
      }
    }
    await new Promise<void>((resolve, reject) => scratch.end((e?: Error | null) => (e ? reject(e) : resolve())));
    if (size !== upload.byteLength) throw new Error(`upload ${upload.id}: assembled ${size} bytes, expected ${upload.byteLength}`);
    await incoming.place(objectKey(hash.digest('hex')));
  } catch (e) {
    scratch.destroy();
    await incoming.discard();
    throw e;
  }
}
