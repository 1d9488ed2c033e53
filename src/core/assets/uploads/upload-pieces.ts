import { createHash, type Hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { DomainError } from '../../platform/errors.ts';
import type { AppendedPiece, AppendPoint, Storage } from '../storage/storage.ts';

/*
 * An upload's bytes in the file store (docs/library.md "How an upload is kept"): one object,
 * `uploads/<id>/data`, that every PATCH appends to where the recorded bytes end (Storage's
 * appendPiece: a file on local disk, a multipart upload on S3), written and read only through
 * `Storage`, so any backend serves. Once complete it is placed under its content key by the store
 * itself (a link, a copy inside the bucket), never rewritten by Shelf.
 */

/** Everything of an upload in the store lives under this prefix. */
export function uploadPrefix(uploadId: string): string {
  return `uploads/${uploadId}`;
}

/** The object an upload's pieces are appended to. */
export function uploadDataKey(uploadId: string): string {
  return `${uploadPrefix(uploadId)}/data`;
}

/** Whether a request's body failed because the client went away (the connection was cut). */
function clientWentAway(body: Readable, e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return (body as IncomingMessage).aborted === true || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}

/** What one PATCH's body is checked and hashed against while it streams. */
export interface PieceChecks {
  /** Bytes the upload still lacks: more is 413 and nothing is kept. */
  room: number;
  /** Hashes fed every byte (the chunk's Upload-Checksum, the upload's running SHA-256). */
  hashes: Hash[];
  /** When the client goes away, what arrived is kept (false: nothing is). */
  keepPartial: boolean;
  /** Throws when this request no longer holds the upload: no byte is written after that. */
  requireLease: () => void;
}

/**
 * Streams a request body onto the upload's object, hashing as it goes; refuses more than `room`
 * bytes (413, nothing kept). A failure of the store is 503 with Retry-After: the client resumes
 * from the offset. The piece is the caller's to record or drop.
 */
export async function receivePiece(storage: Storage, key: string, from: AppendPoint, body: Readable, checks: PieceChecks): Promise<AppendedPiece> {
  let received = 0;
  let wentAway = false;
  async function* metered(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > checks.room) {
          throw new DomainError('payload_too_large', `The chunk goes past the upload's length: ${checks.room} bytes were left`, undefined, {
            reason: 'past_length',
          });
        }
        checks.requireLease();
        for (const hash of checks.hashes) hash.update(chunk);
        yield chunk;
      }
    } catch (e) {
      if (e instanceof DomainError || !clientWentAway(body, e)) throw e;
      wentAway = true;
      if (!checks.keepPartial) throw e;
    }
  }
  try {
    return await storage.appendPiece(key, from, metered());
  } catch (e) {
    if (e instanceof DomainError || wentAway) throw e;
    throw new DomainError('service_unavailable', 'The file store did not take the bytes; resume the upload from its offset', undefined, {
      reason: 'storage_unavailable',
    });
  }
}

/** SHA-256 of a stored object, read once (an upload whose earlier pieces another process hashed). */
export async function hashStored(storage: Storage, key: string): Promise<string> {
  const opened = await storage.open(key);
  if (!opened) {
    throw new DomainError('service_unavailable', 'The upload is missing from the file store; try again', undefined, { reason: 'storage_unavailable' });
  }
  const hash = createHash('sha256');
  for await (const chunk of opened.stream as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

/**
 * The SHA-256 of uploads as their pieces arrive, per process: a piece that continues where this
 * process's hash stopped feeds it, so the last piece needs no read of the whole upload. A piece
 * that another process received leaves no hash here; then the upload is hashed once at its end.
 * Correctness never depends on it: an entry is used only at the exact offset it covers.
 */
export class RunningHashes {
  private readonly entries = new Map<string, { offset: number; hash: Hash }>();
  private readonly max: number;

  constructor(max = 64) {
    this.max = max;
  }

  /** The hash of the upload's first `offset` bytes, taken out (a new one at 0); null when this process has none. */
  take(uploadId: string, offset: number): Hash | null {
    const entry = this.entries.get(uploadId);
    this.entries.delete(uploadId);
    if (offset === 0) return createHash('sha256');
    return entry?.offset === offset ? entry.hash : null;
  }

  /** Keeps the hash of the upload's first `offset` bytes for its next piece; the oldest entry goes past `max`. */
  keep(uploadId: string, offset: number, hash: Hash): void {
    this.entries.set(uploadId, { offset, hash });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
}
