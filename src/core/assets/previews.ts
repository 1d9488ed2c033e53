import sharp from 'sharp';
import { DomainError } from '../platform/errors.ts';
import { HotBytes } from './hot-bytes.ts';
import type { Opened, Storage } from './storage.ts';

/** The derived preview (docs/library.md): WebP, at most 512 px on the long side, never upscaled. */
export const PREVIEW_FORMAT = { maxSide: 512, mimeType: 'image/webp', quality: 80 } as const;

/**
 * Content-addressed key of an object's preview. The version segment changes whenever the preview
 * recipe does, so a new recipe never serves an old derivative.
 */
export function previewKey(sha256: string): string {
  return `derived/preview-v1-webp-${PREVIEW_FORMAT.maxSide}/${sha256.slice(0, 2)}/${sha256}.webp`;
}

/** Whether a derived preview can be made: an image whose dimensions sharp could read at import. */
export function isDerivableImage(object: { mimeType: string; width: number | null }): boolean {
  return object.mimeType.startsWith('image/') && object.width !== null;
}

/**
 * Derived previews, made with sharp on first request and cached in storage.
 *
 * Made once: within a process, concurrent first requests share one in-flight derivation; across
 * processes, each may derive, but the key depends only on the content and the recipe and storage
 * publishes by atomic rename, so every reader sees one complete, identical file.
 */
export class PreviewCache {
  private readonly storage: Storage;
  private readonly inFlight = new Map<string, Promise<string>>();
  /** Recently served previews in memory (hot-bytes.ts): 16 MiB, each at most 1 MiB. */
  readonly hot = new HotBytes({ maxBytes: 16 * 2 ** 20, maxItemBytes: 2 ** 20 });
  /** How many previews this process derived (observability and tests). */
  derivations = 0;

  constructor(storage: Storage) {
    this.storage = storage;
  }

  /** The preview's bytes, derived first when it is not cached yet (kept in memory once served, hot-bytes.ts). */
  open(object: { sha256: string; storageKey: string }): Promise<Opened> {
    return this.hot.openThrough(previewKey(object.sha256), this.storage, () => this.ensure(object));
  }

  /** The storage key of the object's preview, deriving it first when it is not cached yet. */
  private async ensure(object: { sha256: string; storageKey: string }): Promise<string> {
    const key = previewKey(object.sha256);
    if (await this.storage.exists(key)) return key;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.derive(object.storageKey, key).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async derive(sourceKey: string, key: string): Promise<string> {
    // another process may have finished it while this one waited its turn
    if (await this.storage.exists(key)) return key;
    const source = await this.storage.open(sourceKey);
    if (!source) throw new Error(`stored object ${sourceKey} is missing`);
    const resize = sharp()
      .autoOrient()
      .resize({ width: PREVIEW_FORMAT.maxSide, height: PREVIEW_FORMAT.maxSide, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: PREVIEW_FORMAT.quality });
    source.stream.on('error', (e) => resize.destroy(e));
    let bytes: Buffer;
    try {
      bytes = await source.stream.pipe(resize).toBuffer();
    } catch {
      // e.g. a truncated image whose header sharp could read at import: no preview, every time
      throw new DomainError('not_found', 'No preview can be made for this file');
    }
    await this.storage.put(key, bytes);
    this.derivations++;
    return key;
  }
}
