import { Readable } from 'node:stream';
import type { UnitOfWork } from '../../platform/ctx.ts';
import { notFound } from '../../platform/errors.ts';
import type { Storage } from '../storage/storage.ts';
import { attachment } from './attachment.ts';
import { deliveredFile } from './delivered-files.queries.ts';
import { type DerivativeCache, derivativeMimeType, parseDerivativeVariant, resolveRecipe } from './derivatives.ts';
import type { LinkParts, LinkSigner } from './links.ts';
import { isDerivableImage, PREVIEW_FORMAT, type PreviewCache } from './previews.ts';

/** What `/files/...` sends for a valid link. */
export interface Delivery {
  stream: Readable;
  size: number;
  contentType: string;
  /** Seconds until the link expires: the response may be cached privately that long. */
  maxAgeSeconds: number;
  /** Set for downloads: the name to save the file under. */
  downloadName: string | null;
  /**
   * The part of the file sent when a range was asked for and honoured (`size` is then the part's):
   * inclusive bytes of `total`; `satisfiable: false` when the range lies past the end (416).
   * Null: the whole file (no range asked, or a derived image, which is always sent whole).
   */
  range: { satisfiable: true; start: number; end: number; total: number } | { satisfiable: false; total: number } | null;
  /**
   * Set when the store serves the bytes itself (S3 with S3_DOWNLOAD_REDIRECT): a URL valid for at
   * most REDIRECT_MAX_SECONDS and never past the link's own expiry; `stream` is then empty.
   */
  redirectTo: string | null;
}

/** How long a redirect's presigned URL lives at most: enough to start the download, short enough not to outlive a revocation by much. */
export const REDIRECT_MAX_SECONDS = 300;

/**
 * One range of a `Range: bytes=` header (RFC 9110 14.1.2): `start-end`, `start-` (to the end), or
 * `-suffix` (the last `suffix` bytes: start null, end the length).
 */
export interface RequestedRange {
  start: number | null;
  end: number | null;
}

/** A requested range within an object of `total` bytes: the inclusive bytes to send, or null when none of it is there. */
export function resolveRange(range: RequestedRange, total: number): { start: number; end: number } | null {
  if (range.start === null) {
    const suffix = range.end ?? 0;
    if (suffix === 0 || total === 0) return null;
    return { start: Math.max(0, total - suffix), end: total - 1 };
  }
  if (range.start >= total) return null;
  const end = range.end === null ? total - 1 : Math.min(range.end, total - 1);
  if (end < range.start) return null;
  return { start: range.start, end };
}

/**
 * Serves service-issued links (spec 8, docs/library.md). The signature is the credential: the
 * team and file come from the verified link, and the lookup is by both, so a link can reach
 * only its own team's live file, and only storage keys recorded for that file.
 */
export class FileDeliveryService {
  private readonly signer: LinkSigner;
  private readonly storage: Storage;
  private readonly previews: PreviewCache;
  private readonly derivatives: DerivativeCache;

  constructor(deps: { signer: LinkSigner; storage: Storage; previews: PreviewCache; derivatives: DerivativeCache }) {
    this.signer = deps.signer;
    this.storage = deps.storage;
    this.previews = deps.previews;
    this.derivatives = deps.derivatives;
  }

  /**
   * Opens what a link names: 403 altered, 410 expired, 404 when the file or its preview is gone.
   * With `range`, an original (download, preview-original) is sent in part (206); derived images whole.
   */
  async open(op: UnitOfWork, parts: LinkParts, nowMs = Date.now(), range: RequestedRange | null = null): Promise<Delivery> {
    const target = this.signer.verify(parts, nowMs);
    const file = await deliveredFile(op, target.teamId, target.fileId);
    if (!file) throw notFound('File');
    const maxAgeSeconds = Math.max(0, target.expiresAt - Math.floor(nowMs / 1000));
    if (target.purpose === 'preview') {
      if (!isDerivableImage(file)) throw notFound('Preview');
      return { ...(await this.previews.open(file)), contentType: PREVIEW_FORMAT.mimeType, maxAgeSeconds, downloadName: null, range: null, redirectTo: null };
    }
    if (target.purpose === 'derived') {
      // a processed image (search publicUrl): the recipe was signed into the link
      const request = parseDerivativeVariant(target.variant ?? '');
      if (!request || !isDerivableImage(file) || file.height === null) throw notFound('Processed image');
      const recipe = resolveRecipe(request, { mimeType: file.mimeType, width: file.width!, height: file.height });
      const opened = await this.derivatives.open({ ...file, width: file.width!, height: file.height }, recipe);
      return { ...opened, contentType: derivativeMimeType(recipe.format), maxAgeSeconds, downloadName: null, range: null, redirectTo: null };
    }
    if (target.purpose === 'preview-original' && !file.mimeType.startsWith('image/')) throw notFound('Preview');
    const downloadName = target.purpose === 'download' ? file.name : null;
    const redirectTo = await this.storage.downloadUrl(file.storageKey, {
      expiresInSeconds: Math.max(1, Math.min(maxAgeSeconds, REDIRECT_MAX_SECONDS)),
      contentType: file.mimeType,
      contentDisposition: downloadName === null ? null : attachment(downloadName),
    });
    if (redirectTo) return { stream: Readable.from([]), size: 0, range: null, redirectTo, contentType: file.mimeType, maxAgeSeconds, downloadName };
    return { ...(await this.openKey(file.storageKey, range)), contentType: file.mimeType, maxAgeSeconds, downloadName, redirectTo: null };
  }

  private async openKey(key: string, range: RequestedRange | null): Promise<Pick<Delivery, 'stream' | 'size' | 'range'>> {
    if (range) {
      // the object's own size (the row's byte_size is the same bytes' but the store is what is sent)
      const total = await this.storage.size(key);
      if (total === null) throw notFound('File');
      const part = resolveRange(range, total);
      if (!part) return { stream: Readable.from([]), size: 0, range: { satisfiable: false, total } };
      const opened = await this.storage.open(key, part);
      if (!opened) throw notFound('File');
      return { ...opened, range: { satisfiable: true, ...part, total } };
    }
    const opened = await this.storage.open(key);
    if (!opened) throw notFound('File');
    return { ...opened, range: null };
  }
}
