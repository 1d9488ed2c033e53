import type { ActivityItem } from '../../core/catalogue/activity/activity-records.ts';
import type { ProductHistoryItem } from '../../core/catalogue/products/product-history.ts';
import type { Pagination } from '../../core/platform/pagination.ts';
import { withoutNulls } from '../args.ts';
import { builder, PaginationRef } from '../builder.ts';
import { JsonRef } from './library.ts';

const HistoryEntryRef = builder.objectRef<ProductHistoryItem>('ProductHistoryEntry').implement({
  description: 'One change of a product (REST: GET /v1/products/{id}/history).',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Entry id (a decimal string), increasing with time.' }),
    action: t.exposeString('action', { description: '`created`, `updated`, `published`, `unpublished` or `deleted`.' }),
    at: t.exposeString('at', { description: 'When the change committed (RFC 3339, UTC, microseconds).' }),
    actor: t.exposeString('actor', { description: '`key:<id>`, `member:<id>` or `system:<job>`.' }),
    keyId: t.exposeInt('keyId', { nullable: true, description: 'The API key of the change; null without one.' }),
    role: t.exposeString('role', { nullable: true, description: 'That key\'s role at the time.' }),
    requestId: t.exposeString('requestId', { nullable: true, description: 'The request id (X-Request-Id).' }),
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
    at: t.exposeString('at', { description: 'When the write committed (RFC 3339, UTC, microseconds).' }),
    actor: t.exposeString('actor', { description: '`key:<id>`, `member:<id>` or `system:<job>`.' }),
    keyId: t.exposeInt('keyId', { nullable: true, description: 'The API key of the write; null without one.' }),
    role: t.exposeString('role', { nullable: true, description: 'That key\'s role at the time.' }),
    requestId: t.exposeString('requestId', { nullable: true, description: 'The request id (X-Request-Id).' }),
  }),
});

const HistoryPageRef = builder.objectRef<{ items: ProductHistoryItem[]; pagination: Pagination }>('ProductHistoryPage').implement({
  description: 'A page of a product\'s history, newest first.',
  fields: (t) => ({
    items: t.field({ type: [HistoryEntryRef], description: 'The entries of this page.', resolve: (p) => p.items }),
    pagination: t.field({ type: PaginationRef, description: 'Ordinary paging.', resolve: (p) => p.pagination }),
  }),
});

const ActivityPageRef = builder.objectRef<{ items: ActivityItem[]; pagination: Pagination }>('ActivityRecordPage').implement({
  description: 'A page of activity records, newest first.',
  fields: (t) => ({
    items: t.field({ type: [ActivityRef], description: 'The records of this page.', resolve: (p) => p.items }),
    pagination: t.field({ type: PaginationRef, description: 'Ordinary paging.', resolve: (p) => p.pagination }),
  }),
});

builder.queryFields((t) => ({
  productHistory: t.field({
    type: HistoryPageRef,
    description: 'A product\'s history, newest first (REST: GET /v1/products/{id}/history); visible when the product is. Errors: not_found.',
    args: {
      id: t.arg.int({ required: true, description: 'Product id.' }),
      page: t.arg.int({ description: 'Page from 1 (default 1).' }),
      pageSize: t.arg.int({ description: 'Items per page (default 20, at most 100).' }),
    },
    resolve: (_root, args, gql) => gql.core.catalogue.products.history(gql.ctx, args.id, { page: args.page ?? undefined, pageSize: args.pageSize ?? undefined }),
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
      page: t.arg.int({ description: 'Page from 1 (default 1).' }),
      pageSize: t.arg.int({ description: 'Items per page (default 20, at most 100).' }),
    },
    resolve: (_root, args, gql) => gql.core.catalogue.activity.page(gql.ctx, withoutNulls(args)),
  }),
}));
