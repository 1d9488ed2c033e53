import type { LiveRowInput } from '../../platform/live-log.ts';

/** A product change for the live log (product-history.ts writes it with the change's history entry). */
export interface ProductLiveChange {
  teamId: number;
  productId: number;
  action: string;
  before: { status: string; brandId: number | null; categoryId: number | null } | null;
  after: { status: string; brandId: number | null; categoryId: number | null; name: string; updatedAt: string } | null;
  changedFields: string[];
  actor: string;
}

/** The live row of a product change: scoped by the brand and category it has after the change (before, for a deletion). */
export function liveRowOfProductChange(change: ProductLiveChange): LiveRowInput {
  const now = change.action === 'deleted' ? null : change.after;
  const scope = now ?? change.before;
  const published = change.before?.status === 'published' || change.after?.status === 'published';
  return {
    teamId: change.teamId,
    stream: 'product',
    eventType: change.action,
    subjectId: String(change.productId),
    folderIds: [],
    brandId: scope?.brandId ?? null,
    categoryId: scope?.categoryId ?? null,
    draftsOnly: !published,
    body: JSON.stringify({
      productId: change.productId,
      action: change.action,
      status: now?.status ?? null,
      name: now?.name ?? null,
      brandId: scope?.brandId ?? null,
      categoryId: scope?.categoryId ?? null,
      updatedAt: now?.updatedAt ?? null,
      changedFields: change.changedFields,
      actor: change.actor,
      eventTime: String(Date.now()),
    }),
  };
}
