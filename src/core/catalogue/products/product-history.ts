import { type SizedPage, sizedPage } from '../../platform/answer-budget.ts';
import { actorLabel, type Ctx, keyOf } from '../../platform/ctx.ts';
import { recordLive } from '../../platform/live-log.ts';
import { PageQuery } from '../../platform/pagination.schemas.ts';
import { normalizePage, type Pagination, paginationOf } from '../../platform/pagination.ts';
import { compileInput } from '../../platform/validate.ts';
import { recordActivity } from '../activity/activity-records.ts';
import { countHistory, historyEntriesByIds, insertHistoryEntry, sizedHistoryPage } from './product-history.queries.ts';
import type { FieldChange, HistoryAction, ProductHistoryItem } from './product-history.schemas.ts';
import { liveRowOfProductChange } from './product-live-row.ts';
import type { ProductRecord } from './product-projection.ts';

const checkPage = compileInput(PageQuery);

/** The fields of a product a history entry compares, flattened: template and media values per field id. */
function flatten(record: ProductRecord | null): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  if (!record) return fields;
  for (const key of [
    'name',
    'spu',
    'description',
    'status',
    'brandId',
    'categoryId',
    'ownerUserId',
    'templateId',
    'templateVersionId',
    'publishedAt',
  ] as const) {
    fields.set(key, record[key] ?? null);
  }
  fields.set('coverAssetId', record.coverFileId);
  fields.set('imageAssetIds', record.imageFileIds);
  fields.set('relatedAssetIds', record.relatedFileIds);
  for (const [id, value] of Object.entries(record.templateFields ?? {})) fields.set(`templateFields.${id}`, value);
  for (const [id, ids] of Object.entries(record.mediaFields)) fields.set(`templateFields.${id}`, ids);
  return fields;
}

/** The fields that differ between two versions of a product (either may be null: created, deleted). */
export function productChanges(before: ProductRecord | null, after: ProductRecord | null): FieldChange[] {
  const a = flatten(before);
  const b = flatten(after);
  const changes: FieldChange[] = [];
  for (const field of new Set([...a.keys(), ...b.keys()])) {
    const was = a.get(field) ?? null;
    const now = b.get(field) ?? null;
    if (JSON.stringify(was) !== JSON.stringify(now)) changes.push({ field, before: was, after: now });
  }
  return changes;
}

/** Writes a history entry in the caller's transaction (the change and its record commit together). */
export async function recordProductChange(
  tx: Ctx,
  productId: number,
  action: HistoryAction,
  before: ProductRecord | null,
  after: ProductRecord | null,
): Promise<void> {
  const key = keyOf(tx.actor);
  const changes = productChanges(before, after);
  await insertHistoryEntry(tx, {
    productId,
    action,
    actor: actorLabel(tx.actor),
    keyId: key?.keyId ?? null,
    role: key?.role ?? null,
    requestId: tx.requestId ?? null,
    changes,
  });
  // every product change is also a line of the team-wide activity log
  await recordActivity(tx, 'product', productId, action);
  // and a row of the live log, for GraphQL subscribers (docs/graphql.md "Live updates")
  await recordLive(tx, [
    liveRowOfProductChange({
      teamId: tx.teamId,
      productId,
      action,
      before,
      after,
      changedFields: changes.map((change) => change.field),
      actor: actorLabel(tx.actor),
    }),
  ]);
}

/** A product's history, newest first, in ordinary pages (the caller has already been shown the product). */
export async function historyPage(ctx: Ctx, productId: number, query: unknown): Promise<SizedPage<ProductHistoryItem, Pagination>> {
  const page = normalizePage(checkPage(query ?? {}));
  const [count, rows] = await Promise.all([countHistory(ctx, productId), sizedHistoryPage(ctx, productId, page.pageSize, (page.page - 1) * page.pageSize)]);
  return sizedPage(
    paginationOf(page, count),
    rows,
    (ids) => historyEntriesByIds(ctx, productId, ids),
    (item) => item.id,
  );
}
