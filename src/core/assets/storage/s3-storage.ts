import { randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type { AppendedPiece, AppendPoint, AppendState } from './appends.ts';
import type { IncomingObject } from './incoming-object.ts';
import { S3Appends } from './s3-appends.ts';
import { DirectObjectStream } from './s3-direct-read.ts';
import { notFound, storageError, unavailable } from './s3-errors.ts';
import { checkedKey, type ListedObject, type ObjectReader, type Opened, type Storage } from './storage.ts';

/** Where the S3 backend keeps objects: a bucket (and optional key prefix) on AWS or any S3-compatible server. */
export interface S3StorageOptions {
  bucket: string;
  /** Prepended to every key ("shelf/"), so several deployments or test files can share a bucket. */
  prefix?: string;
  /** An S3-compatible server's URL; unset on AWS. */
  endpoint?: string | null;
  region: string;
  /** Path-style addressing (`endpoint/bucket/key`), which most non-AWS servers need. */
  forcePathStyle: boolean;
  /** Credentials; unset: the AWS SDK's default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | null;
  /** Called when a read resumes after a dropped connection, with the offset it resumes from (tests, logs). */
  onResume?: (offset: number) => void;
  /** Answer downloadUrl with presigned GET URLs (S3_DOWNLOAD_REDIRECT); otherwise it answers null. */
  redirectDownloads?: boolean;
  /** How long a read that lost its connection keeps trying to resume from where it stopped (ms). */
  resumeForMs?: number;
}

/** Multipart part size: 8 MiB keeps 4 parts in flight under 32 MiB of buffers while a 1 GiB object needs 128 parts. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 4;
/** CopyObject copies at most 5 GiB in one request; larger objects are copied part by part (UploadPartCopy). */
const SINGLE_COPY_MAX = 5 * 1024 * 1024 * 1024;
const COPY_PART_SIZE = 1024 * 1024 * 1024;

type Sdk = typeof import('@aws-sdk/client-s3');
type LibStorage = typeof import('@aws-sdk/lib-storage');

/**
 * Objects in an S3 bucket. Writes are single PUTs or multipart uploads, both of which S3 makes
 * visible only once complete, so readers never see half an object. Reads stream the object and,
 * when the connection drops midway, resume from the byte they reached (a ranged GET of the same
 * ETag) for `resumeForMs`, so a gateway restarted mid-download costs a pause, not the download.
 *
 * The SDK is loaded on first use: a service or CLI run on local disk never loads it.
 */
export class S3Storage implements Storage {
  private readonly options: S3StorageOptions;
  private readonly prefix: string;
  private loaded: Promise<{ sdk: Sdk; lib: LibStorage; client: S3Client }> | null = null;
  private readonly appends: S3Appends;

  constructor(options: S3StorageOptions) {
    this.options = options;
    this.prefix = options.prefix ? options.prefix.replace(/\/*$/, '/') : '';
    this.appends = new S3Appends(() => this.load(), options.bucket);
  }

  /** Where objects live, for messages and the operator CLI. */
  describe(): string {
    return `s3://${this.options.bucket}/${this.prefix}`;
  }

  private load() {
    this.loaded ??= (async () => {
      const [sdk, lib] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
      const config: S3ClientConfig = {
        region: this.options.region,
        forcePathStyle: this.options.forcePathStyle,
        // flexible checksums send streamed bodies aws-chunked with trailers, which several
        // S3-compatible servers (Ceph's RADOS Gateway among them) answer with a 500
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        ...(this.options.endpoint ? { endpoint: this.options.endpoint } : {}),
        ...(this.options.credentials ? { credentials: this.options.credentials } : {}),
      };
      return { sdk, lib, client: new sdk.S3Client(config) };
    })();
    return this.loaded;
  }

  /** The bucket key of a storage key. */
  private keyOf(key: string): string {
    return this.prefix + checkedKey(key);
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const { sdk, client } = await this.load();
    try {
      await client.send(new sdk.PutObjectCommand({ Bucket: this.options.bucket, Key: this.keyOf(key), Body: bytes, ContentLength: bytes.length }));
    } catch (e) {
      throw storageError(e);
    }
  }

  async putStream(key: string, source: Readable): Promise<void> {
    await this.upload(this.keyOf(key), source);
  }

  /** Streams `source` to `bucketKey`, multipart once it passes one part; nothing stays of a failed upload. */
  private async upload(bucketKey: string, source: Readable): Promise<void> {
    const { lib, client } = await this.load();
    const upload = new lib.Upload({
      client,
      params: { Bucket: this.options.bucket, Key: bucketKey, Body: source },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    // a source that fails stops the upload (lib-storage would otherwise wait for more bytes); its
    // error is the caller's (a client that went away), not the store's, and is passed on as it is
    let sourceError: unknown = null;
    const failed = new Promise<never>((_, reject) =>
      source.once('error', (e) => {
        sourceError = e;
        reject(e);
      }),
    );
    failed.catch(() => {});
    try {
      await Promise.race([upload.done(), failed]);
    } catch (e) {
      await upload.abort().catch(() => {});
      throw sourceError ?? storageError(e);
    }
  }

  /** A multipart upload whose parts are cut from the pieces (s3-appends.ts). */
  appendPiece(key: string, from: AppendPoint, source: AsyncIterable<Buffer>): Promise<AppendedPiece> {
    return this.appends.append(this.keyOf(key), from, source);
  }

  completeAppends(key: string, state: AppendState, length: number): Promise<void> {
    return this.appends.complete(this.keyOf(key), state, length);
  }

  /** CopyObject inside the store (see receive): the bytes do not pass through Shelf. */
  placeAs(from: string, to: string): Promise<boolean> {
    return this.placeCopy(this.keyOf(from), to);
  }

  /** Objects in a bucket have no path on this machine. */
  localPath(): null {
    return null;
  }

  /**
   * Bytes stream as they arrive to a multipart upload under `incoming/<uuid>`; place copies that
   * object to its key inside the store (CopyObject: the bytes do not pass through Shelf again, and
   * the RADOS Gateway shares the copy's data with the original instead of writing it twice) and
   * removes the temporary key. S3 has no "create only if absent" for a copy: two placements of the
   * same content at once both write the same bytes to the same content-addressed key, and each
   * reports that it added the object only if the key was absent when it looked.
   */
  async receive(): Promise<IncomingObject> {
    await this.load();
    const temporaryKey = `${this.prefix}incoming/${randomUUID()}`;
    return new S3IncomingObject(this, temporaryKey);
  }

  /** @internal S3IncomingObject's way to the upload. */
  uploadTo(bucketKey: string, source: Readable): Promise<void> {
    return this.upload(bucketKey, source);
  }

  /** @internal Copies a temporary object to its key unless an object is already there; true when it copied. */
  async placeCopy(temporaryKey: string, key: string): Promise<boolean> {
    const { sdk, client } = await this.load();
    const target = this.keyOf(key);
    const bucket = this.options.bucket;
    try {
      if ((await this.headBucketKey(target)) !== null) return false;
      const size = await this.headBucketKey(temporaryKey);
      if (size === null) throw new Error(`the received object ${temporaryKey} is missing from the store`);
      const source = `${bucket}/${encodeURIComponent(temporaryKey).replace(/%2F/g, '/')}`;
      if (size <= SINGLE_COPY_MAX) {
        await client.send(new sdk.CopyObjectCommand({ Bucket: bucket, Key: target, CopySource: source }));
        return true;
      }
      const { UploadId } = await client.send(new sdk.CreateMultipartUploadCommand({ Bucket: bucket, Key: target }));
      try {
        const parts: { ETag: string; PartNumber: number }[] = [];
        for (let start = 0, n = 1; start < size; start += COPY_PART_SIZE, n++) {
          const end = Math.min(size, start + COPY_PART_SIZE) - 1;
          const copied = await client.send(
            new sdk.UploadPartCopyCommand({
              Bucket: bucket,
              Key: target,
              UploadId,
              PartNumber: n,
              CopySource: source,
              CopySourceRange: `bytes=${start}-${end}`,
            }),
          );
          parts.push({ ETag: copied.CopyPartResult!.ETag!, PartNumber: n });
        }
        await client.send(new sdk.CompleteMultipartUploadCommand({ Bucket: bucket, Key: target, UploadId, MultipartUpload: { Parts: parts } }));
      } catch (e) {
        await client.send(new sdk.AbortMultipartUploadCommand({ Bucket: bucket, Key: target, UploadId })).catch(() => {});
        throw e;
      }
      return true;
    } catch (e) {
      throw storageError(e);
    }
  }

  /**
   * @internal Aborts the multipart uploads to a key only this process writes (a reception's
   * temporary key): an upload cut midway leaves parts the store keeps until they are aborted.
   */
  async abortUploadsTo(bucketKey: string): Promise<void> {
    const { sdk, client } = await this.load();
    const bucket = this.options.bucket;
    try {
      const listed = await client.send(new sdk.ListMultipartUploadsCommand({ Bucket: bucket, Prefix: bucketKey }));
      for (const upload of listed.Uploads ?? []) {
        if (upload.Key !== bucketKey) continue;
        await client.send(new sdk.AbortMultipartUploadCommand({ Bucket: bucket, Key: bucketKey, UploadId: upload.UploadId }));
      }
    } catch (e) {
      throw storageError(e);
    }
  }

  /** @internal Removes an object by its bucket key. */
  async removeBucketKey(bucketKey: string): Promise<void> {
    const { sdk, client } = await this.load();
    try {
      await client.send(new sdk.DeleteObjectCommand({ Bucket: this.options.bucket, Key: bucketKey }));
    } catch (e) {
      throw storageError(e);
    }
  }

  private async headBucketKey(bucketKey: string): Promise<number | null> {
    const { sdk, client } = await this.load();
    try {
      const head = await client.send(new sdk.HeadObjectCommand({ Bucket: this.options.bucket, Key: bucketKey }));
      return head.ContentLength ?? 0;
    } catch (e) {
      if (notFound(e)) return null;
      throw storageError(e);
    }
  }

  /**
   * An http: store (the operator's own gateway) is read over a socket of Shelf's own into reused
   * buffers (s3-direct-read.ts): through the SDK's handler, every 64 KiB read was a new buffer, and
   * a large download spent a third of the service's CPU in the collector. Anything but a plain
   * answer (missing object, bad range, the store down) and https stores go through the SDK.
   */
  async open(key: string, range?: { start: number; end: number }): Promise<Opened | null> {
    const bucketKey = this.keyOf(key);
    if (this.options.endpoint?.startsWith('http:')) {
      const direct = await DirectObjectStream.open({
        presign: () => this.presignGet(bucketKey),
        ...(range ? { range } : {}),
        resumeForMs: this.options.resumeForMs ?? 30_000,
        ...(this.options.onResume ? { onResume: this.options.onResume } : {}),
      });
      if (direct) return direct;
    }
    return this.openStream(bucketKey, range);
  }

  /** A presigned GET of a bucket key, for a read of Shelf's own (no request to the store). */
  private async presignGet(bucketKey: string): Promise<URL> {
    const { sdk, client } = await this.load();
    const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
    return new URL(await getSignedUrl(client, new sdk.GetObjectCommand({ Bucket: this.options.bucket, Key: bucketKey }), { expiresIn: 900 }));
  }

  async openReader(key: string): Promise<ObjectReader | null> {
    const opened = await this.openStream(this.keyOf(key));
    if (!opened) return null;
    const stream = opened.stream as ResumingObjectStream;
    // a failure surfaces at the next readInto (stream.errored), not as an unhandled 'error' event
    stream.on('error', () => {});
    let pending: Buffer | null = null;
    return {
      size: opened.size,
      readInto: async (into) => {
        let filled = 0;
        while (filled < into.length) {
          if (!pending || pending.length === 0) {
            pending = stream.read() as Buffer | null;
            if (pending === null) {
              if (stream.errored) throw stream.errored;
              if (stream.readableEnded || filled > 0) break;
              await stream.readableOrDone();
              continue;
            }
          }
          const n = pending.copy(into, filled);
          filled += n;
          pending = pending.subarray(n);
        }
        return filled;
      },
      close: async () => {
        stream.destroy();
      },
    };
  }

  /**
   * An object's bytes (or a range of them) as a stream that resumes after a dropped connection: a
   * GET of the rest of the same ETag, retried until `resumeForMs` passes without progress. A body
   * that ends short of its length is an error, never a silently shorter object.
   */
  private async openStream(bucketKey: string, range?: { start: number; end: number }): Promise<Opened | null> {
    const { sdk, client } = await this.load();
    const bucket = this.options.bucket;
    const get = async (from: number, to: number | null, etag?: string) =>
      client.send(
        new sdk.GetObjectCommand({
          Bucket: bucket,
          Key: bucketKey,
          ...(from > 0 || to !== null ? { Range: `bytes=${from}-${to ?? ''}` } : {}),
          ...(etag ? { IfMatch: etag } : {}),
        }),
      );
    let first: Awaited<ReturnType<typeof get>>;
    try {
      first = await get(range?.start ?? 0, range ? range.end : null);
    } catch (e) {
      if (notFound(e)) return null;
      if ((e as { name?: string }).name === 'InvalidRange') return { stream: Readable.from([]), size: 0 };
      throw storageError(e);
    }
    const size = first.ContentLength ?? 0;
    const start = range?.start ?? 0;
    const etag = first.ETag;
    const stream = new ResumingObjectStream({
      first: first.Body as Readable,
      start,
      end: start + size - 1,
      resumeForMs: this.options.resumeForMs ?? 30_000,
      refetch: async (from, to) => {
        this.options.onResume?.(from);
        return (await get(from, to, etag)).Body as Readable;
      },
    });
    return { stream, size };
  }

  async exists(key: string): Promise<boolean> {
    return (await this.headBucketKey(this.keyOf(key))) !== null;
  }

  /**
   * A presigned GET of the object (SigV4 query signature, no request to the store), with the
   * response's Content-Type and Content-Disposition fixed by the signature; null unless
   * `redirectDownloads`. The store answers ranges on it itself.
   */
  async downloadUrl(key: string, options: { expiresInSeconds: number; contentType: string; contentDisposition: string | null }): Promise<string | null> {
    if (!this.options.redirectDownloads) return null;
    const { sdk, client } = await this.load();
    const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
    const command = new sdk.GetObjectCommand({
      Bucket: this.options.bucket,
      Key: this.keyOf(key),
      ResponseContentType: options.contentType,
      ...(options.contentDisposition ? { ResponseContentDisposition: options.contentDisposition } : {}),
    });
    return getSignedUrl(client, command, { expiresIn: Math.max(1, Math.floor(options.expiresInSeconds)) });
  }

  async size(key: string): Promise<number | null> {
    return this.headBucketKey(this.keyOf(key));
  }

  async remove(key: string): Promise<void> {
    await this.removeBucketKey(this.keyOf(key));
  }

  async removeTree(prefix: string): Promise<void> {
    const { sdk, client } = await this.load();
    const bucketPrefix = `${this.keyOf(prefix)}/`;
    try {
      for await (const page of this.pages(bucketPrefix)) {
        if (page.length === 0) continue;
        await client.send(
          new sdk.DeleteObjectsCommand({ Bucket: this.options.bucket, Delete: { Objects: page.map((o) => ({ Key: o.bucketKey })), Quiet: true } }),
        );
      }
      await this.appends.abortUnder(bucketPrefix);
    } catch (e) {
      throw storageError(e);
    }
  }

  async *list(prefix = ''): AsyncGenerator<ListedObject> {
    const bucketPrefix = prefix === '' ? this.prefix : `${this.keyOf(prefix)}/`;
    try {
      for await (const page of this.pages(bucketPrefix)) {
        for (const object of page) yield { key: object.bucketKey.slice(this.prefix.length), size: object.size, modifiedAt: object.modifiedAt };
      }
    } catch (e) {
      throw storageError(e);
    }
  }

  /** Every object under a bucket prefix, a page (at most 1,000) at a time, in key order. */
  private async *pages(bucketPrefix: string): AsyncGenerator<{ bucketKey: string; size: number; modifiedAt: Date }[]> {
    const { sdk, client } = await this.load();
    let token: string | undefined;
    do {
      const page = await client.send(new sdk.ListObjectsV2Command({ Bucket: this.options.bucket, Prefix: bucketPrefix, ContinuationToken: token }));
      yield (page.Contents ?? []).map((o) => ({ bucketKey: o.Key!, size: o.Size ?? 0, modifiedAt: o.LastModified ?? new Date(0) }));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** Closes the client's connections (tests, the CLI). */
  async close(): Promise<void> {
    if (this.loaded) (await this.loaded).client.destroy();
  }
}

/**
 * The body of a GET, passed on chunk by chunk (no copy, back-pressure by pausing the body), that
 * fetches the rest of the object from the offset it reached when the connection drops or the body
 * ends early, until `resumeForMs` passes without a byte; then it fails as StorageUnavailableError.
 */
class ResumingObjectStream extends Readable {
  private body: Readable | null = null;
  private offset: number;
  private readonly end: number;
  private readonly resumeForMs: number;
  private readonly refetch: (from: number, to: number) => Promise<Readable>;
  private lastProgress = Date.now();

  constructor(options: { first: Readable; start: number; end: number; resumeForMs: number; refetch: (from: number, to: number) => Promise<Readable> }) {
    super({ highWaterMark: 1024 * 1024 });
    this.offset = options.start;
    this.end = options.end;
    this.resumeForMs = options.resumeForMs;
    this.refetch = options.refetch;
    if (this.offset > this.end) {
      options.first.destroy();
      this.push(null);
    } else this.attach(options.first);
  }

  /**
   * Resolves once a read may return something (or the stream ended or failed), for readers that
   * pull with read(); the listeners go once it fires, so a piped stream is never switched to pull.
   */
  readableOrDone(): Promise<void> {
    if (this.readableLength > 0 || this.readableEnded || this.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const events = ['readable', 'end', 'close', 'error'] as const;
      const done = () => {
        for (const event of events) this.off(event, done);
        resolve();
      };
      for (const event of events) this.on(event, done);
    });
  }

  private attach(body: Readable): void {
    this.body = body;
    body.on('data', (chunk: Buffer) => {
      if (this.body !== body) return;
      this.offset += chunk.length;
      this.lastProgress = Date.now();
      if (!this.push(chunk)) body.pause();
    });
    body.once('end', () => {
      if (this.body !== body) return;
      if (this.offset > this.end) {
        this.body = null;
        this.push(null);
      } else void this.lost(body, Object.assign(new Error('the object store ended the object early'), { code: 'ECONNRESET' }));
    });
    body.once('error', (e) => {
      if (this.body === body) void this.lost(body, e);
    });
  }

  private async lost(body: Readable, e: unknown): Promise<void> {
    this.body = null;
    body.destroy();
    if (this.destroyed) return;
    if (!unavailable(e) || Date.now() - this.lastProgress > this.resumeForMs) {
      this.destroy(storageError(e));
      return;
    }
    await delay(250);
    if (this.destroyed) return;
    let next: Readable;
    try {
      next = await this.refetch(this.offset, this.end);
    } catch (again) {
      const dummy = new PassThrough();
      void this.lost(dummy, again);
      return;
    }
    if (this.destroyed) next.destroy();
    else this.attach(next);
  }

  override _read(): void {
    this.body?.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.body?.destroy();
    this.body = null;
    callback(error);
  }
}

/** An object received into the store under a temporary key, then copied to its content key inside the store. */
class S3IncomingObject implements IncomingObject {
  private readonly storage: S3Storage;
  private readonly temporaryKey: string;
  private readonly body = new PassThrough({ highWaterMark: PART_SIZE });
  private readonly uploaded: Promise<void>;
  private failure: Error | null = null;
  private done = false;

  constructor(storage: S3Storage, temporaryKey: string) {
    this.storage = storage;
    this.temporaryKey = temporaryKey;
    this.uploaded = storage.uploadTo(temporaryKey, this.body);
    this.uploaded.catch((e: Error) => {
      this.failure = e;
      // a writer waiting for a drain learns of the failure
      this.body.destroy(e);
    });
  }

  write(chunk: Buffer): void | Promise<void> {
    if (this.failure) throw this.failure;
    if (this.done) throw new Error('the incoming object was already placed or discarded');
    if (!this.body.write(chunk)) {
      return new Promise<void>((resolve, reject) => {
        const drained = () => {
          this.body.off('close', closed);
          resolve();
        };
        const closed = () => {
          this.body.off('drain', drained);
          reject(this.failure ?? new Error('the incoming object was closed'));
        };
        this.body.once('drain', drained).once('close', closed);
      });
    }
  }

  async place(key: string): Promise<boolean> {
    if (this.done) throw new Error('the incoming object was already placed or discarded');
    try {
      this.body.end();
      await this.uploaded;
      const placed = await this.storage.placeCopy(this.temporaryKey, key);
      this.done = true;
      await this.storage.removeBucketKey(this.temporaryKey).catch(() => {});
      return placed;
    } catch (e) {
      await this.discard();
      throw e;
    }
  }

  async discard(): Promise<void> {
    if (this.done) return;
    this.done = true;
    this.body.destroy(new Error('the incoming object was discarded'));
    await this.uploaded.catch(() => {});
    // best effort: with the store down, what is left is for the bucket's lifecycle rule (docs/operations.md)
    await this.storage.abortUploadsTo(this.temporaryKey).catch(() => {});
    await this.storage.removeBucketKey(this.temporaryKey).catch(() => {});
  }
}
