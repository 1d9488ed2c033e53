import type { ActivityItem } from '../../core/catalogue/activity/activity-records.ts';
import type { ProductHistoryItem } from '../../core/catalogue/products/product-history.ts';
import { withoutNulls } from '../args.ts';
import { pageCost } from '../costs.ts';
import { builder } from '../builder.ts';
import { pageArgs, pageQuery, pageType, type ObjectFieldBuilder } from '../shapes.ts';
import { JsonRef } from './json.ts';

/** Who made a write and when, as a history entry and an activity record both tell it; `noun` is what the type calls the write. */
function writerFields<Shape extends ProductHistoryItem | ActivityItem>(t: ObjectFieldBuilder<Shape>, noun: 'change' | 'write') {
  return {
    at: t.string({ description: `When the ${noun} committed (RFC 3339, UTC, microseconds).`, resolve: (item) => item.at }),
    actor: t.string({ description: '`key:<id>`, `member:<id>` or `system:<job>`.', resolve: (item) => item.actor }),
    keyId: t.int({ nullable: true, description: `The API key of the ${noun}; null without one.`, resolve: (item) => item.keyId }),
    role: t.string({ nullable: true, description: 'That key\'s role at the time.', resolve: (item) => item.role }),
    requestId: t.string({ nullable: true, description: 'The request id (X-Request-Id).', resolve: (item) => item.requestId }),
  };
}

const HistoryEntryRef = builder.objectRef<ProductHistoryItem>('ProductHistoryEntry').implement({
  description: 'One change of a product (REST: GET /v1/products/{id}/history).',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Entry id (a decimal string), increasing with time.' }),
    action: t.exposeString('action', { description: '`created`, `updated`, `published`, `unpublished` or `deleted`.' }),
    ...writerFields(t, 'change'),
    changes: t.field({ type: JsonRef, description: 'The changed fields: `[{field, before, after}]`, template values as `templateFields.<id>`, media as file-path ID lists.', resolve: (e) => e.changes }),
  }),
});

const ActivityRef = builder.objectRef<ActivityItem>('ActivityRecord').implement({
  description: 'One catalogue write of the team (REST: GET /v1/activity-records).',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Record id (a decimal string), increasing with time.' }),
    resourceType: t.exposeString('resourceType', { description: '`brand`, `category`, `template`, `product`, `share`, `download` or `activity_records`.' }),
    resourceId: t.exposeString('resourceId', { description: 'The resource\'s id as a string.' }),
    action: t.exposeString('action', { description: '`created`, `updated`, `published`, `unpublished`, `deleted`, `revoked` (shares) or `purged`.' }),
    ...writerFields(t, 'write'),
  }),
});

const HistoryPageRef = pageType('ProductHistoryPage', HistoryEntryRef, { description: 'A page of a product\'s history, newest first.', items: 'entries', pagination: 'Ordinary paging.' });

const ActivityPageRef = pageType('ActivityRecordPage', ActivityRef, { description: 'A page of activity records, newest first.', items: 'records', pagination: 'Ordinary paging.' });

builder.queryFields((t) => ({
  productHistory: t.field({
    type: HistoryPageRef,
    description: 'A product\'s history, newest first (REST: GET /v1/products/{id}/history); visible when the product is. Errors: not_found.',
    args: {
      id: t.arg.int({ required: true, description: 'Product id.' }),
      ...pageArgs(t),
    },
    complexity: pageCost,
    resolve: (_root, args, gql) => gql.core.catalogue.products.history(gql.ctx, args.id, pageQuery(args)),
  }),
  activityRecords: t.field({
    type: ActivityPageRef,
    description: 'The team\'s catalogue writes, newest first (manage role; REST: GET /v1/activity-records). Errors: forbidden, validation_failed.',
    args: {
      resourceType: t.arg.string({ description: '`brand`, `category`, `template`, `product`, `share`, `download` or `activity_records`.' }),
      resourceId: t.arg.string({ description: 'One resource (with resourceType).' }),
      actorKeyId: t.arg.int({ description: 'Writes made with this API key.' }),
      from: t.arg.string({ description: 'At or after this time (RFC 3339).' }),
      to: t.arg.string({ description: 'Before this time (RFC 3339).' }),
      ...pageArgs(t),
    },
    complexity: pageCost,
    resolve: (_root, args, gql) => gql.core.catalogue.activity.page(gql.ctx, withoutNulls(args)),
  }),
}));
