import type { Readable } from 'node:stream';
import { notFound } from '../../platform/errors.ts';
import { deliveredFile } from './delivered-files.queries.ts';
import { derivativeMimeType, parseDerivativeVariant, resolveRecipe, type DerivativeCache } from './derivatives.ts';
import type { UnitOfWork } from '../../platform/ctx.ts';
import type { LinkParts, LinkSigner } from './links.ts';
import { isDerivableImage, PREVIEW_FORMAT, type PreviewCache } from './previews.ts';
import type { Storage } from '../storage/storage.ts';

/** What `/files/...` sends for a valid link. */
export interface Delivery {
  stream: Readable;
  size: number;
  contentType: string;
  /** Seconds until the link expires: the response may be cached privately that long. */
  maxAgeSeconds: number;
  /** Set for downloads: the name to save the file under. */
  downloadName: string | null;
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

  /** Opens what a link names: 403 altered, 410 expired, 404 when the file or its preview is gone. */
  async open(op: UnitOfWork, parts: LinkParts, nowMs = Date.now()): Promise<Delivery> {
    const target = this.signer.verify(parts, nowMs);
    const file = await deliveredFile(op, target.teamId, target.fileId);
    if (!file) throw notFound('File');
    const maxAgeSeconds = Math.max(0, target.expiresAt - Math.floor(nowMs / 1000));
    if (target.purpose === 'preview') {
      if (!isDerivableImage(file)) throw notFound('Preview');
      return { ...(await this.previews.open(file)), contentType: PREVIEW_FORMAT.mimeType, maxAgeSeconds, downloadName: null };
    }
    if (target.purpose === 'derived') {
      // a processed image (search publicUrl): the recipe was signed into the link
      const request = parseDerivativeVariant(target.variant ?? '');
      if (!request || !isDerivableImage(file) || file.height === null) throw notFound('Processed image');
      const recipe = resolveRecipe(request, { mimeType: file.mimeType, width: file.width!, height: file.height });
      const opened = await this.derivatives.open({ ...file, width: file.width!, height: file.height }, recipe);
      return { ...opened, contentType: derivativeMimeType(recipe.format), maxAgeSeconds, downloadName: null };
    }
    if (target.purpose === 'preview-original' && !file.mimeType.startsWith('image/')) throw notFound('Preview');
    const downloadName = target.purpose === 'download' ? file.name : null;
    return { ...(await this.openKey(file.storageKey)), contentType: file.mimeType, maxAgeSeconds, downloadName };
  }

  private async openKey(key: string): Promise<{ stream: Readable; size: number }> {
    const opened = await this.storage.open(key);
    if (!opened) throw notFound('File');
    return opened;
  }
}
