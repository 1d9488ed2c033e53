import type { UnitOfWork } from '../platform/ctx.ts';
import { insertLiveRows, type LiveRowInput } from './live-events.queries.ts';

/** What the live log records of an outbox event (outbox.ts): which stream it feeds and what it is about. */
export type LiveScope = { stream: 'library'; subjectId: string; folderIds: readonly number[] } | { stream: 'approval'; subjectId: string };

/** The streams a subscription reads (docs/graphql.md "Live updates"). */
export const LIVE_STREAMS = ['library', 'approval', 'product'] as const;
export type LiveStream = (typeof LIVE_STREAMS)[number];

/** A library event or approval callback for the live log: the very body a webhook receiver gets (less its per-line sequence). */
export function liveRowOfEvent(teamId: number, eventType: string, scope: LiveScope, body: string): LiveRowInput {
  return {
    teamId,
    stream: scope.stream,
    eventType,
    subjectId: scope.subjectId,
    folderIds: scope.stream === 'library' ? [...new Set(scope.folderIds)] : [],
    brandId: null,
    categoryId: null,
    draftsOnly: false,
    body,
  };
}

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

/**
 * A key's role changed or it was revoked: a row of the key's team that no subscription shows, on
 * which every process with streams of the key checks the key again at once (live-hub.ts).
 */
export function liveRowOfKeyChange(teamId: number, keyId: number, change: 'revoked' | 'role_changed'): LiveRowInput {
  return {
    teamId,
    stream: 'key',
    eventType: change,
    subjectId: String(keyId),
    folderIds: [],
    brandId: null,
    categoryId: null,
    draftsOnly: false,
    body: JSON.stringify({ keyId, change }),
  };
}

/** Writes live rows in the caller's transaction: they commit, or roll back, with the change. */
export function recordLive(tx: UnitOfWork, rows: readonly LiveRowInput[]): Promise<void> {
  return insertLiveRows(tx, rows);
}
