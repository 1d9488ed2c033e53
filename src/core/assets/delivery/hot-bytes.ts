import { Readable } from 'node:stream';
import type { Opened, Storage } from '../storage/storage.ts';

/**
 * Small immutable files kept in memory, least recently used out first, within a byte budget:
 * previews and processed images are content- and recipe-addressed, so a kept copy can never be
 * stale. Serving one from storage allocated a fresh read buffer per request; at a few hundred
 * requests a second that churn of external memory made V8 run a full mark-compact every
 * 100-200 ms (7-16 ms pauses, measured with --trace-gc), the tail of cached-image latency.
 */
export class HotBytes {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;
  private readonly maxBytes: number;
  private readonly maxItemBytes: number;

  constructor(options: { maxBytes: number; maxItemBytes: number }) {
    this.maxBytes = options.maxBytes;
    this.maxItemBytes = options.maxItemBytes;
  }

  /**
   * `key` from memory, else from storage, where `make` first writes it when it is missing (and
   * returns its key); kept in memory once read. The previews' and processed images' read path.
   */
  async openThrough(key: string, storage: Storage, make: () => Promise<string>): Promise<Opened> {
    const hot = this.open(key);
    if (hot) return hot;
    const stored = (await storage.open(key)) ?? (await storage.open(await make()));
    if (!stored) throw new Error(`${key} is missing from storage just after it was made`);
    return this.keep(key, stored);
  }

  /** The kept bytes of `key` as a fresh stream, or null. */
  open(key: string): Opened | null {
    const bytes = this.entries.get(key);
    if (!bytes) return null;
    this.entries.delete(key);
    this.entries.set(key, bytes);
    return { stream: Readable.from([bytes], { objectMode: false }), size: bytes.length };
  }

  /**
   * Passes `opened` through, keeping a copy when it is small enough: it is read whole first (it is
   * at most maxItemBytes), then served from the copy.
   */
  async keep(key: string, opened: Opened): Promise<Opened> {
    if (opened.size > this.maxItemBytes) return opened;
    const chunks: Buffer[] = [];
    for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    this.entries.delete(key);
    this.entries.set(key, bytes);
    this.bytes += bytes.length;
    for (const [oldest, kept] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= kept.length;
    }
    return { stream: Readable.from([bytes], { objectMode: false }), size: bytes.length };
  }

  /** Bytes kept (tests). */
  get keptBytes(): number {
    return this.bytes;
  }
}
