import sharp from 'sharp';
import type { Opened, Storage } from '../storage/storage.ts';
import { DerivedImageCache } from './derived-image-cache.ts';

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

/** Derived previews (docs/library.md), made with sharp on first request and cached in storage. */
export class PreviewCache extends DerivedImageCache {
  constructor(storage: Storage) {
    super(storage, 'No preview can be made for this file');
  }

  /** The preview's bytes, derived first when it is not cached yet. */
  open(object: { sha256: string; storageKey: string }): Promise<Opened> {
    return this.openDerived(previewKey(object.sha256), object.storageKey, (source) => {
      const resize = sharp()
        .autoOrient()
        .resize({ width: PREVIEW_FORMAT.maxSide, height: PREVIEW_FORMAT.maxSide, fit: 'inside', withoutEnlargement: true })
        .webp({ quality: PREVIEW_FORMAT.quality });
      // a failed read ends the derivation (DerivedImageCache answers it); destroying sharp with the
      // error would emit it where nobody listens, an uncaught exception
      source.once('error', () => resize.destroy());
      return source.pipe(resize).toBuffer();
    });
  }
}
