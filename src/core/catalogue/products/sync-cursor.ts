import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalid } from '../../platform/errors.ts';

/** Spec 2.1 / 8: a cursor is 1-8192 characters. */
export const MAX_CURSOR_LENGTH = 8192;

/** What a sync scan is bound to: a cursor is refused for any other caller, scope or page size. */
export interface SyncScope {
  keyId: number;
  role: string;
  teamId: number;
  /** Filters as normalized by the caller (absent filters are null). */
  filters: Record<string, string | number | null>;
  pageSize: number;
  /** Inclusive lower bound, six fractional digits, Z; null for a full scan. */
  lower: string | null;
  /** Exclusive fixed upper bound: the first request's database time minus 30 seconds. */
  upper: string;
  /**
   * Present only under the sync feed opt-in (`changes=true`, docs/products.md "Sync feed"): how the
   * key's view of drafts changed since `lower` (fixed by the first request, like the bounds).
   */
  feed?: { view: FeedView };
}

/** Whether a key's role sees drafts as it did at the cycle's lower bound, or lost or gained them since. */
export type FeedView = 'same' | 'narrowed' | 'widened';

/** The last row returned, keyset style; null before the first row. */
export interface SyncPosition {
  updatedAt: string;
  id: number;
  /** Under the feed opt-in: the entry's kind among entries of one product at one instant (FEED_KIND). */
  kind?: number;
}

interface Payload {
  v: 1;
  s: SyncScope;
  p: SyncPosition | null;
}

function sign(secret: string, body: string): string {
  return createHmac('sha256', secret).update(`sync-cursor.v1.${body}`).digest('base64url');
}

/** An opaque, tamper-proof cursor: base64url(JSON) + "." + HMAC-SHA256 of it. */
export function encodeCursor(secret: string, scope: SyncScope, position: SyncPosition | null): string {
  const body = Buffer.from(JSON.stringify({ v: 1, s: scope, p: position } satisfies Payload)).toString('base64url');
  const cursor = `${body}.${sign(secret, body)}`;
  if (cursor.length > MAX_CURSOR_LENGTH) throw invalid('cursor', 'the scan scope is too large to fit in a cursor; shorten the search filter');
  return cursor;
}

/** Verifies and opens a cursor; any alteration, truncation or foreign secret is `validation_failed` on `cursor`. */
export function decodeCursor(secret: string, cursor: string): { scope: SyncScope; position: SyncPosition | null } {
  if (cursor.length < 1 || cursor.length > MAX_CURSOR_LENGTH) throw invalid('cursor', `must be 1-${MAX_CURSOR_LENGTH} characters`);
  const dot = cursor.indexOf('.');
  const body = cursor.slice(0, dot);
  const given = Buffer.from(cursor.slice(dot + 1), 'base64url');
  const expected = Buffer.from(sign(secret, body), 'base64url');
  if (dot <= 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw invalid('cursor', 'is not a cursor issued by this service');
  }
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
  if (payload.v !== 1) throw invalid('cursor', 'is from an unsupported version');
  return { scope: payload.s, position: payload.p };
}

/** Throws unless the cursor's scope belongs to this caller and the repeated parameters are equivalent. */
export function requireSameScope(
  bound: SyncScope,
  current: Pick<SyncScope, 'keyId' | 'role' | 'teamId'>,
  repeated: Partial<SyncScope> & { changes?: boolean },
): void {
  if (bound.keyId !== current.keyId || bound.teamId !== current.teamId || bound.role !== current.role) {
    throw invalid('cursor', 'belongs to another key or role; start a new scan');
  }
  if (repeated.pageSize !== undefined && repeated.pageSize !== bound.pageSize)
    throw invalid('pageSize', 'differs from the cursor; omit it or repeat the same value');
  if (repeated.lower !== undefined && repeated.lower !== bound.lower)
    throw invalid('updatedAfter', 'differs from the cursor; omit it or repeat the same value');
  if (repeated.changes !== undefined && repeated.changes !== (bound.feed !== undefined))
    throw invalid('changes', 'differs from the cursor; omit it or repeat the same value');
  for (const [name, value] of Object.entries(repeated.filters ?? {})) {
    if (value !== null && value !== undefined && bound.filters[name] !== value) {
      throw invalid(name, 'differs from the cursor; omit it or repeat the same value');
    }
  }
}
