import type { Ctx } from '../../platform/ctx.ts';
import type { TemplateVersionView, TemplateView } from './template.schemas.ts';
import { findLiveTemplate, lockLiveTemplate, lockTemplateForShare, readVersionState as versionStateRow } from './templates.queries.ts';

/*
 * The template reads that take more than one statement: a read after a lock, a version's state.
 * The statements are in templates.queries.ts.
 */

/** One live template of the caller's team; `forUpdate` locks its row for the rest of the transaction. */
export async function readTemplate(ctx: Ctx, id: string, options: { forUpdate?: boolean } = {}): Promise<TemplateView | null> {
  // Lock alone first: a joined FOR UPDATE that waited for a concurrent writer re-checks only the
  // locked row against the old version row, and would lose the template. The read after the lock
  // takes a fresh snapshot (read committed) and so sees the committed winner.
  if (options.forUpdate && !(await lockLiveTemplate(ctx, id))) return null;
  return findLiveTemplate(ctx, id);
}

/** A template as moving a product to another of its versions sees it: whether it is live, its current version's number, the version asked for. */
export interface TemplateVersionState {
  live: boolean;
  currentNumber: number;
  /** The version with the number asked for (the current one when none was asked); null when there is none. */
  version: TemplateVersionView | null;
}

/**
 * One template of the caller's team (deleted ones included, as products pin their versions) and
 * its version numbered `number` (null: the current one), or null when the team has no such
 * template. With `lock`, the template row is held FOR SHARE first, so it cannot be deleted or get
 * a new version until the caller's transaction ends; the read after the lock sees what committed
 * before it (a joined locking read would re-check only the locked row, as readTemplate explains).
 */
export async function readVersionState(
  ctx: Ctx,
  templateId: string,
  number: number | null,
  options: { lock?: boolean } = {},
): Promise<TemplateVersionState | null> {
  if (options.lock && !(await lockTemplateForShare(ctx, templateId))) return null;
  return versionStateRow(ctx, templateId, number);
}
