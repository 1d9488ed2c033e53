import type { S3Client } from '@aws-sdk/client-s3';
import type { AppendedPiece, AppendPoint, AppendState } from './appends.ts';
import { notFound, storageError } from './s3-errors.ts';

type Sdk = typeof import('@aws-sdk/client-s3');

/** S3 needs every part but the last to be at least 5 MiB; 8 MiB parts make 128 of a GiB. */
const MIN_PART_SIZE = 8 * 1024 * 1024;
/** S3 takes at most 10,000 parts; a little room is left under it. */
const MAX_PARTS = 9_000;
/** How long part buffers are kept after the last piece ended, for the next PATCH of an upload. */
const SPARE_KEPT_MS = 10_000;
/** Parts sent at once: two kept the gateway as busy as four (bench/RESULTS-uploads.md) with half the buffers. */
const PARTS_IN_FLIGHT = 2;

/**
 * An S3 object written in pieces: one multipart upload whose parts are cut from the pieces'
 * bytes. The bytes of a piece that do not fill a part (S3's minimum part size is 5 MiB; tus
 * clients often send 5 MB) are kept as a small "tail" object and lead the next piece's first part.
 */
interface S3AppendState {
  /** null until a first whole part is sent: a small upload needs no multipart upload. */
  uploadId: string | null;
  partSize: number;
  /** The parts sent, each `partSize` bytes, in order. */
  parts: { n: number; etag: string }[];
  /** The bytes after the last part, held as an object of their own; null when none. */
  tail: { key: string; size: number } | null;
  /** The object was written whole by its last piece (no part ever sent): completing it is nothing. */
  whole?: boolean;
}

function stateOf(state: AppendState): S3AppendState {
  return state as unknown as S3AppendState;
}

/** The part size for an object of `length`: at least MIN_PART_SIZE, whole MiB, within MAX_PARTS. */
function partSizeFor(length: number): number {
  const MiB = 1024 * 1024;
  return Math.max(MIN_PART_SIZE, Math.ceil(length / MAX_PARTS / MiB) * MiB);
}

/**
 * Appends to S3 objects (S3Storage's appendPiece and completeAppends). Between pieces nothing
 * stays in memory: the multipart upload's id, the parts' ETags and the tail's key are the state.
 */
export class S3Appends {
  private readonly load: () => Promise<{ sdk: Sdk; client: S3Client }>;
  private readonly bucket: string;
  /** Part buffers are reused: a GiB in 8 MiB buffers freshly allocated each time kept the GC busy. */
  private readonly spare: Buffer[] = [];
  private active = 0;
  private idle: NodeJS.Timeout | null = null;

  constructor(load: () => Promise<{ sdk: Sdk; client: S3Client }>, bucket: string) {
    this.load = load;
    this.bucket = bucket;
  }

  async append(bucketKey: string, from: AppendPoint, source: AsyncIterable<Buffer>): Promise<AppendedPiece> {
    const { sdk, client } = await this.load();
    const Bucket = this.bucket;
    let previous: S3AppendState = from.state === null ? { uploadId: null, partSize: partSizeFor(from.length), parts: [], tail: null } : stateOf(from.state);
    let revived = false;
    if (previous.uploadId !== null && (await this.exists(bucketKey))) {
      // an earlier last piece completed the upload, then its placement failed: continue a copy of it
      previous = await this.revive(bucketKey, previous);
      revived = true;
    }
    const { partSize } = previous;
    let uploadId = previous.uploadId;
    let started = false;
    const parts = [...previous.parts];
    const sending = new Set<Promise<void>>();
    let failure: unknown = null;
    let buffer = this.buffer(partSize);
    let filled = previous.tail ? await this.readInto(previous.tail.key, buffer) : 0;
    let written = 0;
    let next = previous.parts.length + 1;
    this.active++;
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const send = (bytes: Buffer, n: number) => {
      const sent = client
        .send(new sdk.UploadPartCommand({ Bucket, Key: bucketKey, UploadId: uploadId!, PartNumber: n, Body: bytes, ContentLength: bytes.length }))
        .then(
          (answer) => {
            parts.push({ n, etag: answer.ETag! });
          },
          (e: unknown) => {
            failure ??= e;
          },
        )
        .finally(() => {
          sending.delete(sent);
          this.release(bytes);
        });
      sending.add(sent);
    };
    try {
      for await (const chunk of source) {
        for (let at = 0; at < chunk.length; ) {
          const n = chunk.copy(buffer, filled, at);
          filled += n;
          at += n;
          if (filled < partSize) continue;
          while (sending.size >= PARTS_IN_FLIGHT) await Promise.race(sending);
          if (failure) throw failure;
          if (uploadId === null) {
            uploadId = await this.start(bucketKey);
            started = true;
          }
          send(buffer, next++);
          buffer = this.buffer(partSize);
          filled = 0;
        }
        written += chunk.length;
      }
      await Promise.all(sending);
      if (failure) throw failure;
      parts.sort((a, b) => a.n - b.n);
      let tail = previous.tail;
      // the whole object in one buffer (a small upload's last piece): one PUT, no multipart upload
      const whole = written > 0 && uploadId === null && from.offset + written === from.length;
      if (whole) {
        tail = null;
        await client.send(new sdk.PutObjectCommand({ Bucket, Key: bucketKey, Body: buffer.subarray(0, filled), ContentLength: filled }));
      } else if (written > 0) {
        tail = filled === 0 ? null : { key: `${bucketKey}.tail.${from.offset + written}`, size: filled };
        if (tail) await client.send(new sdk.PutObjectCommand({ Bucket, Key: tail.key, Body: buffer.subarray(0, filled), ContentLength: filled }));
      }
      this.release(buffer);
      const state: S3AppendState = { uploadId, partSize, parts, tail, ...(whole ? { whole } : {}) };
      const own = (t: S3AppendState['tail']) => t !== null && t.key !== previous.tail?.key;
      return {
        written,
        state: state as unknown as AppendState,
        recorded: async () => {
          if (previous.tail && previous.tail.key !== tail?.key) await this.remove(previous.tail.key).catch(() => {});
          // the completed object the upload was revived from is not its bytes any more
          if (revived) await this.remove(bucketKey).catch(() => {});
        },
        drop: async () => {
          if (own(tail)) await this.remove(tail!.key).catch(() => {});
          if (whole) await this.remove(bucketKey).catch(() => {});
          if ((started || revived) && uploadId !== null) await this.abort(bucketKey, uploadId).catch(() => {});
        },
      };
    } catch (e) {
      await Promise.allSettled(sending);
      if ((started || revived) && uploadId !== null) await this.abort(bucketKey, uploadId).catch(() => {});
      throw storageError(e);
    } finally {
      // kept for the upload's next PATCH (each PATCH's own buffers were 8 MiB of garbage a part),
      // dropped once no piece has arrived for a while: an idle process holds none of them
      if (--this.active === 0) {
        this.idle = setTimeout(() => {
          this.spare.length = 0;
        }, SPARE_KEPT_MS);
        this.idle.unref();
      }
    }
  }

  /** Sends the tail as the last part and completes the multipart upload: the object is readable from then on. */
  async complete(bucketKey: string, state: AppendState, length: number): Promise<void> {
    const { sdk, client } = await this.load();
    const Bucket = this.bucket;
    const { uploadId, partSize, parts, tail, whole } = stateOf(state);
    if (whole) return;
    if (parts.length * partSize + (tail?.size ?? 0) !== length) throw new Error(`the appended object ${bucketKey} does not hold ${length} bytes`);
    try {
      if (uploadId === null) {
        // no part was ever sent (the last piece added nothing): the tail is the object
        const buffer = this.buffer(partSize);
        const size = tail ? await this.readInto(tail.key, buffer) : 0;
        await client.send(new sdk.PutObjectCommand({ Bucket, Key: bucketKey, Body: buffer.subarray(0, size), ContentLength: size }));
        return;
      }
      const all = [...parts];
      if (tail) {
        const buffer = this.buffer(partSize);
        const size = await this.readInto(tail.key, buffer);
        const n = parts.length + 1;
        const sent = await client.send(
          new sdk.UploadPartCommand({ Bucket, Key: bucketKey, UploadId: uploadId, PartNumber: n, Body: buffer.subarray(0, size), ContentLength: size }),
        );
        all.push({ n, etag: sent.ETag! });
      }
      await client.send(
        new sdk.CompleteMultipartUploadCommand({
          Bucket,
          Key: bucketKey,
          UploadId: uploadId,
          MultipartUpload: { Parts: all.map((p) => ({ PartNumber: p.n, ETag: p.etag })) },
        }),
      );
    } catch (e) {
      throw storageError(e);
    }
  }

  private async start(bucketKey: string): Promise<string> {
    const { sdk, client } = await this.load();
    try {
      const { UploadId } = await client.send(new sdk.CreateMultipartUploadCommand({ Bucket: this.bucket, Key: bucketKey }));
      return UploadId!;
    } catch (e) {
      throw storageError(e);
    }
  }

  /**
   * A new multipart upload holding the recorded parts of the completed object (UploadPartCopy:
   * the store copies them, nothing passes through Shelf); the tail object is still there.
   */
  private async revive(bucketKey: string, state: S3AppendState): Promise<S3AppendState> {
    const { sdk, client } = await this.load();
    const Bucket = this.bucket;
    const fresh = { uploadId: await this.start(bucketKey) };
    const source = `${Bucket}/${encodeURIComponent(bucketKey).replace(/%2F/g, '/')}`;
    try {
      const parts: S3AppendState['parts'] = [];
      for (const { n } of state.parts) {
        const start = (n - 1) * state.partSize;
        const copied = await client.send(
          new sdk.UploadPartCopyCommand({
            Bucket,
            Key: bucketKey,
            UploadId: fresh.uploadId,
            PartNumber: n,
            CopySource: source,
            CopySourceRange: `bytes=${start}-${start + state.partSize - 1}`,
          }),
        );
        parts.push({ n, etag: copied.CopyPartResult!.ETag! });
      }
      return { ...state, uploadId: fresh.uploadId, parts };
    } catch (e) {
      await this.abort(bucketKey, fresh.uploadId).catch(() => {});
      throw storageError(e);
    }
  }

  private release(buffer: Buffer): void {
    if (this.spare.length <= PARTS_IN_FLIGHT) this.spare.push(buffer);
  }

  private buffer(size: number): Buffer {
    for (;;) {
      const kept = this.spare.pop();
      if (!kept) return Buffer.allocUnsafe(size);
      if (kept.length === size) return kept;
    }
  }

  /** Reads a (small) object into the start of `into`; its size. */
  private async readInto(bucketKey: string, into: Buffer): Promise<number> {
    const { sdk, client } = await this.load();
    try {
      const got = await client.send(new sdk.GetObjectCommand({ Bucket: this.bucket, Key: bucketKey }));
      let size = 0;
      for await (const chunk of got.Body as AsyncIterable<Buffer>) size += chunk.copy(into, size);
      if (size !== got.ContentLength) throw new Error(`the object ${bucketKey} ended early`);
      return size;
    } catch (e) {
      throw storageError(e);
    }
  }

  private async exists(bucketKey: string): Promise<boolean> {
    const { sdk, client } = await this.load();
    try {
      await client.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: bucketKey }));
      return true;
    } catch (e) {
      if (notFound(e)) return false;
      throw storageError(e);
    }
  }

  private async remove(bucketKey: string): Promise<void> {
    const { sdk, client } = await this.load();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: bucketKey }));
  }

  private async abort(bucketKey: string, uploadId: string): Promise<void> {
    const { sdk, client } = await this.load();
    await client.send(new sdk.AbortMultipartUploadCommand({ Bucket: this.bucket, Key: bucketKey, UploadId: uploadId }));
  }

  /** Aborts every unfinished multipart upload under a bucket prefix (an upload terminated or expired). */
  async abortUnder(bucketPrefix: string): Promise<void> {
    const { sdk, client } = await this.load();
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const listed = await client.send(
        new sdk.ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: bucketPrefix, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }),
      );
      for (const upload of listed.Uploads ?? []) await this.abort(upload.Key!, upload.UploadId!);
      keyMarker = listed.IsTruncated ? listed.NextKeyMarker : undefined;
      uploadIdMarker = listed.IsTruncated ? listed.NextUploadIdMarker : undefined;
    } while (keyMarker);
  }
}
