import type { Actor } from '../../platform/ctx.ts';
import { type DerivativeRequest, derivativeVariant } from '../delivery/derivatives.ts';
import type { LinkSigner } from '../delivery/links.ts';
import { isDerivableImage } from '../delivery/previews.ts';
import type { AssetRow } from './asset-rows.queries.ts';
import type { AssetItem } from './search.schemas.ts';

/** Who the links are for and how to process images: links expire with the caller's key (spec 5). */
export interface LinkContext {
  actor: Actor;
  teamId: number;
  derivative: DerivativeRequest | null;
  nowMs: number;
}

/**
 * AssetItem (spec 2.6) from a row: signed download and preview links, and `publicUrl` to the
 * processed image when processing parameters were given and the file is a decodable image.
 */
export function toAssetItem(row: AssetRow, signer: LinkSigner, links: LinkContext): AssetItem {
  const target = { teamId: links.teamId, fileId: row.id };
  const image = { mimeType: row.mimeType, width: row.width };
  let thumbnailAccessUrl: string | null = null;
  if (isDerivableImage(image)) thumbnailAccessUrl = signer.issue(links.actor, { ...target, purpose: 'preview' }, links.nowMs).url;
  else if (row.mimeType.startsWith('image/')) thumbnailAccessUrl = signer.issue(links.actor, { ...target, purpose: 'preview-original' }, links.nowMs).url;
  const publicUrl =
    links.derivative && isDerivableImage(image) && row.height !== null
      ? signer.issue(links.actor, { ...target, purpose: 'derived', variant: derivativeVariant(links.derivative) }, links.nowMs).url
      : '';
  const analysed = row.aiTags !== null || row.aiTitle !== null || row.aiDescription !== null || row.aiDetailedDescription !== null;
  return {
    id: row.id,
    parentIds: row.parentIds.map(Number),
    userId: row.ownerId === null ? null : String(row.ownerId),
    name: row.name,
    downloadUrl: signer.issue(links.actor, { ...target, purpose: 'download' }, links.nowMs).url,
    source: row.source,
    link: row.link,
    extension: row.extension,
    duration: row.durationMs,
    size: row.sizeKb,
    width: row.width,
    height: row.height,
    description: row.description,
    score: row.score,
    createTime: row.createTime,
    createUser: row.createUserId === null ? null : String(row.createUserId),
    updateTime: row.updateTime,
    updateUser: row.updateUserId,
    tags: row.tags ?? [],
    thumbnailAccessUrl,
    imageContentAnalysis: analysed
      ? { aiTags: row.aiTags, aiTitle: row.aiTitle, aiDescription: row.aiDescription, aiDetailedDescription: row.aiDetailedDescription }
      : null,
    publicUrl,
  };
}
