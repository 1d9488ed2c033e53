import sharp, { type Sharp } from 'sharp';
import type { Opened, Storage } from '../storage/storage.ts';
import { DerivedImageCache } from './derived-image-cache.ts';

/** Output formats of processed images (spec 4.6 `f`). */
export const DERIVATIVE_FORMATS = ['jpg', 'png', 'webp'] as const;
export type DerivativeFormat = (typeof DERIVATIVE_FORMATS)[number];

/** How a processed image fits w x h (spec 4.6 `mode`); `fit` is the default. */
export const DERIVATIVE_MODES = ['fit', 'crop'] as const;
export type DerivativeMode = (typeof DERIVATIVE_MODES)[number];

/** What a search request asks of `publicUrl` (spec 4.6 w, h, mode, q, f, bg), already validated. */
export interface DerivativeRequest {
  w?: number;
  h?: number;
  mode?: DerivativeMode;
  q?: number;
  f?: DerivativeFormat;
  /** Six hex digits, lower-case, no '#'. */
  bg?: string;
}

/** Limits of spec 8 ("Search dimensions"). */
export const DERIVATIVE_LIMITS = { maxSide: 6000, defaultQuality: 80 } as const;

const MIME_OF: Record<DerivativeFormat, string> = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

/**
 * The canonical text of a request, signed into the link (`v=`): e.g. `w800-h600-crop-q70-fwebp-bgffffff`.
 * Only given parameters appear, in a fixed order, so equal requests give equal links.
 */
export function derivativeVariant(request: DerivativeRequest): string {
  const parts: string[] = [];
  if (request.w !== undefined) parts.push(`w${request.w}`);
  if (request.h !== undefined) parts.push(`h${request.h}`);
  parts.push(request.mode ?? 'fit');
  if (request.q !== undefined) parts.push(`q${request.q}`);
  if (request.f !== undefined) parts.push(`f${request.f}`);
  if (request.bg !== undefined) parts.push(`bg${request.bg}`);
  return parts.join('-');
}

const VARIANT = /^(?:w(\d{1,4})-)?(?:h(\d{1,4})-)?(fit|crop)(?:-q(\d{1,3}))?(?:-f(jpg|png|webp))?(?:-bg([0-9a-f]{6}))?$/;

/** Parses a variant back (links are signed, so this only guards against our own mistakes). */
export function parseDerivativeVariant(variant: string): DerivativeRequest | null {
  const m = VARIANT.exec(variant);
  if (!m) return null;
  const request: DerivativeRequest = { mode: m[3] as DerivativeMode };
  if (m[1] !== undefined) request.w = Number(m[1]);
  if (m[2] !== undefined) request.h = Number(m[2]);
  if (m[4] !== undefined) request.q = Number(m[4]);
  if (m[5] !== undefined) request.f = m[5] as DerivativeFormat;
  if (m[6] !== undefined) request.bg = m[6];
  const inRange = (v: number | undefined, max: number) => v === undefined || (v >= 1 && v <= max);
  return inRange(request.w, DERIVATIVE_LIMITS.maxSide) && inRange(request.h, DERIVATIVE_LIMITS.maxSide) && inRange(request.q, 100) ? request : null;
}

/** The source a derivative is made from: a decodable image of known size. */
export interface DerivativeSource {
  sha256: string;
  storageKey: string;
  mimeType: string;
  width: number;
  height: number;
}

/**
 * The recipe actually applied, with the request resolved against the original: sizes above the
 * original's are clamped to it (never upscaled), the format defaults to the original's when it
 * is jpg, png or webp and to webp otherwise, quality defaults to 80, and JPEG (no alpha) gets a
 * white background unless `bg` says otherwise.
 */
export interface DerivativeRecipe {
  width: number | undefined;
  height: number | undefined;
  mode: DerivativeMode;
  format: DerivativeFormat;
  quality: number;
  background: string | undefined;
}

export function resolveRecipe(request: DerivativeRequest, source: Pick<DerivativeSource, 'mimeType' | 'width' | 'height'>): DerivativeRecipe {
  const original: DerivativeFormat | undefined = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' }[source.mimeType] as
    | DerivativeFormat
    | undefined;
  const format = request.f ?? original ?? 'webp';
  return {
    width: request.w === undefined ? undefined : Math.min(request.w, source.width),
    height: request.h === undefined ? undefined : Math.min(request.h, source.height),
    mode: request.mode ?? 'fit',
    format,
    quality: request.q ?? DERIVATIVE_LIMITS.defaultQuality,
    background: request.bg ?? (format === 'jpg' ? 'ffffff' : undefined),
  };
}

/** Content- and recipe-addressed key: the same bytes and recipe always name the same derivative. */
export function derivativeKey(sha256: string, recipe: DerivativeRecipe): string {
  const name = [
    `w${recipe.width ?? 'auto'}`,
    `h${recipe.height ?? 'auto'}`,
    recipe.mode,
    `q${recipe.format === 'png' ? 'lossless' : recipe.quality}`,
    `bg${recipe.background ?? 'none'}`,
  ].join('-');
  return `${derivedImagesPrefix(sha256)}/${name}.${recipe.format}`;
}

/** Where every processed image of one content lives, so a permanent delete can remove them all. */
export function derivedImagesPrefix(sha256: string): string {
  return `derived/image-v1/${sha256.slice(0, 2)}/${sha256}`;
}

export function derivativeMimeType(format: DerivativeFormat): string {
  return MIME_OF[format];
}

/** Applies a recipe with sharp: EXIF orientation, resize (fit inside or centre crop), flatten, encode. */
export function derivativePipeline(input: Buffer | string, recipe: DerivativeRecipe): Sharp {
  let image = sharp(input, { failOn: 'error' }).autoOrient();
  if (recipe.width !== undefined || recipe.height !== undefined) {
    image = image.resize({
      width: recipe.width,
      height: recipe.height,
      fit: recipe.mode === 'crop' ? 'cover' : 'inside',
      position: 'centre',
      withoutEnlargement: true,
    });
  }
  if (recipe.background !== undefined) image = image.flatten({ background: `#${recipe.background}` });
  if (recipe.format === 'jpg') return image.jpeg({ quality: recipe.quality, mozjpeg: false });
  if (recipe.format === 'webp') return image.webp({ quality: recipe.quality });
  return image.png();
}

/** Processed images behind `publicUrl` (spec 4.6), made with sharp on first request and cached in storage. */
export class DerivativeCache extends DerivedImageCache {
  constructor(storage: Storage) {
    super(storage, 'No processed image can be made for this file');
  }

  /** The derivative's bytes, made first when it is not cached yet. */
  open(source: DerivativeSource, recipe: DerivativeRecipe): Promise<Opened> {
    return this.openDerived(derivativeKey(source.sha256, recipe), source.storageKey, async (stream) => {
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return derivativePipeline(Buffer.concat(chunks), recipe).toBuffer();
    });
  }
}
