import { ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { storageError, unavailable } from './s3-errors.ts';

/**
 * Reading buffers per object read: socket reads land in these and are reused, so a download
 * allocates no memory per read (a fresh 64 KiB buffer per read is what made the service's heap be
 * mark-compacted every few dozen MB received). Two are the least the rotation needs; four keep
 * reads going while earlier ones are still being written to the client.
 */
const BUFFERS = 4;
const BUFFER_BYTES = 1024 * 1024;
/** The least a reading buffer holds: a socket read's worth. */
const MIN_BUFFER_BYTES = 64 * 1024;
/** How long the store may take to answer a GET's head before the read goes through the SDK instead. */
const HEAD_TIMEOUT_MS = 30_000;
/** An answer's head larger than this is not one of a GET of an object. */
const MAX_HEAD_BYTES = 64 * 1024;

/** The status line and headers of the store's answer. */
interface Head {
  status: number;
  headers: Map<string, string>;
}

/** A GET whose head was read: the socket (paused) and the body bytes that came with the head. */
interface DirectGet {
  head: Head;
  socket: Socket;
  rest: Buffer;
}

/** A presigned GET URL of the object (http: only): what a read needs to reach the store. */
export type PresignGet = () => Promise<URL>;

/** Where body bytes go once a GET's head is read: set by the reader that takes the GET over. */
interface BodySink {
  onBody: (n: number, buffer: Buffer) => boolean;
}

class HeadError extends Error {
  readonly code = 'ECONNRESET';
}

/**
 * The reading buffers of one object read: a buffer is taken for a socket read and given back once
 * its bytes are written out. Buffers are made on first use and no larger than the answer's body
 * (`sizeFor`), so reading a thumbnail holds its own size, not four megabytes.
 */
class BufferRing {
  private readonly free: Buffer[] = [];
  private made = 0;
  private bufferBytes = BUFFER_BYTES;

  /** Called once the answer's length is known, before the first body buffer is taken. */
  sizeFor(bodyBytes: number): void {
    if (Number.isSafeInteger(bodyBytes) && bodyBytes >= 0) this.bufferBytes = Math.min(BUFFER_BYTES, Math.max(MIN_BUFFER_BYTES, bodyBytes));
  }

  /** The reader pauses the socket before the last spare buffer is taken, so one is always there. */
  take(): Buffer {
    const buffer = this.free.pop();
    if (buffer) return buffer;
    this.made++;
    return Buffer.allocUnsafeSlow(this.bufferBytes);
  }

  give(buffer: Buffer): void {
    this.free.push(buffer);
  }

  /** Buffers free or not yet made, besides the one the next socket read lands in. */
  get spare(): number {
    return this.free.length + Math.max(0, BUFFERS - this.made);
  }
}

/**
 * An object's bytes read from the store over a socket of its own, with a presigned GET (made in
 * this process, as the SDK would sign it), into a few reused buffers. Piped into an HTTP response
 * (what `/files` does), each buffer is written to the client and read into again once that write
 * is done; read any other way, each chunk is copied out first, since a consumer may keep it.
 * When the connection drops midway, the rest of the same ETag is fetched from the byte reached,
 * until `resumeForMs` passes without progress, as ResumingObjectStream does for SDK reads.
 *
 * The store is the operator's infrastructure (S3_ENDPOINT), reached as the SDK reaches it.
 */
export class DirectObjectStream extends Readable {
  private readonly presign: PresignGet;
  private readonly etag: string;
  private readonly end: number;
  private readonly resumeForMs: number;
  private readonly onResume?: (offset: number) => void;
  private readonly ring: BufferRing;
  private readonly sink: BodySink;
  private offset: number;
  private lastProgress = Date.now();
  private socket: Socket | null = null;
  /** Body bytes read with the head, passed on when the reader starts. */
  private pending: Buffer | null = null;
  private started = false;
  /** Set once piped into an HTTP response: chunks go there directly and buffers are reused. */
  private response: ServerResponse | null = null;
  private waitingForBuffer = false;

  private constructor(options: {
    presign: PresignGet;
    etag: string;
    start: number;
    end: number;
    resumeForMs: number;
    onResume?: (offset: number) => void;
    ring: BufferRing;
    sink: BodySink;
  }) {
    super({ highWaterMark: BUFFER_BYTES });
    this.presign = options.presign;
    this.etag = options.etag;
    this.offset = options.start;
    this.end = options.end;
    this.resumeForMs = options.resumeForMs;
    this.onResume = options.onResume;
    this.ring = options.ring;
    this.sink = options.sink;
    this.sink.onBody = (n, buffer) => this.received(n, buffer);
  }

  /**
   * Opens a read of `range` (or the whole object): null when the store's answer is not a plain
   * 200/206 with a length and an ETag (missing object, bad range, an error, the store down), for
   * the caller to ask through the SDK, which knows how to report each of those.
   */
  static async open(options: {
    presign: PresignGet;
    range?: { start: number; end: number };
    resumeForMs: number;
    onResume?: (offset: number) => void;
    /** How long the store may take to answer the head (default 30 s); past it the caller reads through the SDK. */
    headTimeoutMs?: number;
  }): Promise<{ stream: DirectObjectStream; size: number } | null> {
    const start = options.range?.start ?? 0;
    const ring = new BufferRing();
    const sink: BodySink = { onBody: () => false };
    let got: DirectGet;
    try {
      got = await request(await options.presign(), start, options.range ? options.range.end : null, null, ring, sink, options.headTimeoutMs);
    } catch {
      return null;
    }
    const size = Number(got.head.headers.get('content-length'));
    const etag = got.head.headers.get('etag');
    if (![200, 206].includes(got.head.status) || !Number.isSafeInteger(size) || !etag || got.head.headers.has('transfer-encoding')) {
      got.socket.destroy();
      return null;
    }
    const stream = new DirectObjectStream({ ...options, etag, start, end: start + size - 1, ring, sink });
    stream.attach(got);
    return { stream, size };
  }

  /** Pipes into an HTTP response without copies; anything else is piped the usual way (copies). */
  override pipe<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T {
    if (!(destination instanceof ServerResponse) || this.started || options?.end === false) return super.pipe(destination, options);
    this.response = destination;
    destination.once('close', () => {
      if (!this.readableEnded) this.destroy();
    });
    this.start();
    return destination;
  }

  override _read(): void {
    if (!this.started) this.start();
    else if (!this.response) this.socket?.resume();
  }

  private start(): void {
    this.started = true;
    const pending = this.pending;
    this.pending = null;
    if (pending && pending.length > 0) this.deliver(pending, null);
    if (this.offset > this.end) this.finish();
    else this.socket?.resume();
  }

  /** A socket read of `n` body bytes into `buffer`; false pauses reading. */
  private received(n: number, buffer: Buffer): boolean {
    const more = this.deliver(buffer.subarray(0, n), buffer);
    if (this.offset > this.end) {
      this.finish();
      return false;
    }
    return more;
  }

  /** Passes body bytes on; `buffer` (a ring buffer, or null for a buffer of their own) is given back once they are out of it. */
  private deliver(bytes: Buffer, buffer: Buffer | null): boolean {
    const wanted = this.end + 1 - this.offset;
    const chunk = bytes.length > wanted ? bytes.subarray(0, wanted) : bytes;
    if (chunk.length === 0) {
      if (buffer) this.ring.give(buffer);
      return true;
    }
    this.offset += chunk.length;
    this.lastProgress = Date.now();
    if (this.response) {
      this.response.write(chunk, () => {
        if (!buffer) return;
        this.ring.give(buffer);
        if (this.waitingForBuffer && this.ring.spare > 0) {
          this.waitingForBuffer = false;
          this.socket?.resume();
        }
      });
      if (buffer && this.ring.spare <= 1) {
        this.waitingForBuffer = true;
        return false;
      }
      return true;
    }
    const more = this.push(buffer ? Buffer.from(chunk) : chunk);
    if (buffer) this.ring.give(buffer);
    return more;
  }

  private finish(): void {
    const socket = this.socket;
    this.socket = null;
    socket?.destroy();
    if (this.response) {
      this.response.end();
      // nothing is buffered: flowing ends the readable side at once, so the response's owner sees it end
      this.push(null);
      this.resume();
    } else this.push(null);
  }

  private attach(got: DirectGet): void {
    const socket = got.socket;
    this.socket = socket;
    const dropped = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      void this.lost(Object.assign(new Error('the object store ended the object early'), { code: 'ECONNRESET' }));
    };
    socket.on('error', () => {});
    socket.once('close', dropped);
    if (socket.destroyed) queueMicrotask(dropped);
    if (!this.started) {
      this.pending = got.rest;
      return;
    }
    if (got.rest.length > 0) this.deliver(got.rest, null);
    if (this.offset > this.end) this.finish();
    else socket.resume();
  }

  private async lost(e: unknown): Promise<void> {
    if (this.destroyed) return;
    if (!unavailable(e) || Date.now() - this.lastProgress > this.resumeForMs) {
      this.destroy(storageError(e));
      return;
    }
    await delay(250);
    if (this.destroyed) return;
    this.onResume?.(this.offset);
    let got: DirectGet;
    try {
      got = await request(await this.presign(), this.offset, this.end, this.etag, this.ring, this.sink);
    } catch (again) {
      void this.lost(again);
      return;
    }
    if (got.head.status !== 206) {
      got.socket.destroy();
      // a changed object (If-Match failed) is not a dropped connection; an error answer may be
      const failure = Object.assign(new Error(`the object store answered ${got.head.status} when a read resumed`), {
        $metadata: { httpStatusCode: got.head.status },
      });
      void this.lost(failure);
      return;
    }
    if (this.destroyed) got.socket.destroy();
    else this.attach(got);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const socket = this.socket;
    this.socket = null;
    socket?.destroy();
    callback(error);
  }
}

/**
 * Sends a GET for bytes `from`..`to` (to the end when null) and resolves once the answer's head is
 * read, the socket paused; later body reads land in the ring's buffers and go to `sink`. Rejects
 * when the connection fails or closes before the head is read.
 */
function request(
  url: URL,
  from: number,
  to: number | null,
  ifMatch: string | null,
  ring: BufferRing,
  sink: BodySink,
  headTimeoutMs = HEAD_TIMEOUT_MS,
): Promise<DirectGet> {
  return new Promise((resolve, reject) => {
    let headRead = false;
    let headBytes: Buffer = Buffer.alloc(0);
    let current: Buffer = Buffer.allocUnsafe(MAX_HEAD_BYTES);
    const socket = connect({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 80),
      noDelay: true,
      onread: {
        // called after each read for the buffer of the next one
        buffer: () => current,
        // the bytes are in `current` (the buffer handed out for this read), which is a Buffer
        callback: (n) => {
          if (headRead) {
            const more = sink.onBody(n, current);
            current = ring.take();
            return more;
          }
          headBytes = Buffer.concat([headBytes, current.subarray(0, n)]);
          const endOfHead = headBytes.indexOf('\r\n\r\n');
          if (endOfHead < 0) {
            if (headBytes.length >= MAX_HEAD_BYTES) socket.destroy(new HeadError('the object store answered with an oversized head'));
            return true;
          }
          headRead = true;
          // a paused socket is idle while a slow client drains it: the timeout guards the head only
          socket.setTimeout(0);
          const head = parseHead(headBytes.subarray(0, endOfHead).toString('latin1'));
          ring.sizeFor(Number(head.headers.get('content-length')));
          current = ring.take();
          resolve({ head, socket, rest: Buffer.from(headBytes.subarray(endOfHead + 4)) });
          return false;
        },
      },
    });
    socket.setTimeout(headTimeoutMs, () => socket.destroy(new HeadError('the object store did not answer in time')));
    socket.once('error', reject);
    socket.once('close', () => reject(new HeadError('the object store closed the connection before answering')));
    const range = to === null ? (from > 0 ? `bytes=${from}-` : null) : `bytes=${from}-${to}`;
    socket.write(
      `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n${range ? `Range: ${range}\r\n` : ''}${ifMatch ? `If-Match: ${ifMatch}\r\n` : ''}Connection: close\r\n\r\n`,
    );
  });
}

function parseHead(text: string): Head {
  const [statusLine = '', ...lines] = text.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status, headers };
}
