import { GraphQLError } from 'graphql';
import { requirePermission } from '../../core/access/roles.ts';
import { CALLBACK_EVENT_NAMES, CALLBACK_TASK_STATUSES } from '../../core/approvals/approval-values.ts';
import { PRODUCT_STATUSES, type ProductStatus } from '../../core/catalogue/products/product.schemas.ts';
import { HISTORY_ACTIONS, type HistoryAction } from '../../core/catalogue/products/product-history.schemas.ts';
import type { LiveRow } from '../../core/live/live-events.queries.ts';
import type { StreamScope } from '../../core/live/live-stream.ts';
import { issueStreamToken } from '../../core/live/stream-tokens.ts';
import { EVENT_TYPES, type EventType } from '../../core/outbox/event-types.ts';
import { keyOf } from '../../core/platform/ctx.ts';
import { DomainError } from '../../core/platform/errors.ts';
import { oneOf } from '../../core/platform/row-checks.ts';
import { builder } from '../builder.ts';
import type { GqlContext } from '../context.ts';
import { storedValue } from '../enums.ts';
import { HistoryActionEnum } from './activity.ts';
import { CallbackEventNameEnum, CallbackTaskStatusEnum } from './approval-enums.ts';
import { JsonRef } from './json.ts';
import { ProductStatusEnum } from './product.ts';
import { EventTypeEnum } from './webhook.ts';

const RESUME =
  'Every update carries its `position`; a client that reconnects with the last one it received (this argument, or the SSE `Last-Event-ID` header, which EventSource sends by itself) first receives what it missed, in order and once. ' +
  'A position older than the live log keeps (LIVE_WINDOW_MINUTES, 60 by default) is refused with `position_expired`: refetch what you show, then subscribe without one.';

function positionOf(row: LiveRow): string {
  return String(row.position);
}

function atOf(row: LiveRow): string {
  const ms = Number(row.body.eventTime);
  return new Date(Number.isFinite(ms) ? ms : row.writtenAtMs).toISOString();
}

const positionField = {
  description: 'Where this update sits in the live log: pass it as `after` (or Last-Event-ID) to resume after it. Digits, compared as numbers.',
};

const LibraryEventUpdateRef = builder.objectRef<LiveRow>('LibraryEventUpdate').implement({
  description: 'A committed library event (spec 6.2): what a webhook receiver of MATERIAL_* events gets, with its position.',
  fields: (t) => ({
    position: t.string({ ...positionField, resolve: positionOf }),
    eventId: t.string({ description: 'The event id, the same as the webhook delivery of this event carries.', resolve: (row) => String(row.body.eventId) }),
    eventType: t.field({
      type: EventTypeEnum,
      description: 'One of the MATERIAL_* event types of spec 6.2.',
      resolve: (row) => storedValue<EventType>(EVENT_TYPES, row.eventType),
    }),
    at: t.string({ description: 'When the change was made (RFC 3339).', resolve: atOf }),
    fileId: t.int({
      description: 'The file (file-path ID) the event is keyed by: the one to refetch through queries.',
      resolve: (row) => Number(row.subjectId),
    }),
    folderIds: t.intList({
      description: "The folders on the affected files' paths (for a move, both paths), at most a folder tree's depth per file.",
      resolve: (row) => row.folderIds,
    }),
    actor: t.field({ type: JsonRef, description: 'Who made the change: {kind: key|member|system, id or job}.', resolve: (row) => row.body.actor ?? null }),
    payload: t.field({
      type: JsonRef,
      description: "The event's spec 6.2 payload, as docs/events.md describes per event type.",
      resolve: (row) => row.body.payload ?? null,
    }),
  }),
});

const ApprovalProgressUpdateRef = builder.objectRef<LiveRow>('ApprovalProgressUpdate').implement({
  description: 'A committed approval callback (spec 6.3) of a task, in the order the callbacks are sent, with its position.',
  fields: (t) => ({
    position: t.string({ ...positionField, resolve: positionOf }),
    eventId: t.string({ description: 'The event id, the same as the callback delivery carries.', resolve: (row) => String(row.body.eventId) }),
    taskId: t.string({ description: 'The approval task.', resolve: (row) => row.subjectId }),
    eventName: t.field({
      type: CallbackEventNameEnum,
      description: 'The callback eventName of spec 6.3.',
      resolve: (row) => oneOf(CALLBACK_EVENT_NAMES, payloadOf(row).eventName, 'payload.eventName'),
    }),
    taskStatus: t.field({
      type: CallbackTaskStatusEnum,
      description: 'The taskStatus of spec 6.3.',
      resolve: (row) => oneOf(CALLBACK_TASK_STATUSES, payloadOf(row).taskStatus, 'payload.taskStatus'),
    }),
    round: t.int({ description: 'The review round (1, then one more per resubmission).', resolve: (row) => Number(payloadOf(row).round ?? 1) }),
    at: t.string({ description: 'When the change was made (RFC 3339).', resolve: atOf }),
    payload: t.field({
      type: JsonRef,
      description: 'The whole spec 6.3 payload: node, approver, decision and comment, as the callback carries them.',
      resolve: (row) => payloadOf(row),
    }),
  }),
});

function payloadOf(row: LiveRow): Record<string, unknown> {
  const payload = row.body.payload;
  return payload !== null && typeof payload === 'object' ? (payload as Record<string, unknown>) : {};
}

const ProductChangeUpdateRef = builder.objectRef<LiveRow>('ProductChangeUpdate').implement({
  description: 'A committed product change, with what a list or detail view needs to update itself without a refetch; refetch the product for the rest.',
  fields: (t) => ({
    position: t.string({ ...positionField, resolve: positionOf }),
    productId: t.int({ description: 'The product.', resolve: (row) => Number(row.subjectId) }),
    action: t.field({
      type: HistoryActionEnum,
      description: 'What the change did.',
      resolve: (row) => storedValue<HistoryAction>(HISTORY_ACTIONS, row.eventType),
    }),
    status: t.field({
      type: ProductStatusEnum,
      nullable: true,
      description: 'The status after the change; null when it was deleted.',
      resolve: (row) => (row.body.status === null ? null : storedValue<ProductStatus>(PRODUCT_STATUSES, String(row.body.status))),
    }),
    name: t.string({
      nullable: true,
      description: 'The name after the change; null when it was deleted.',
      resolve: (row) => (row.body.name as string | null) ?? null,
    }),
    brandId: t.int({ nullable: true, description: 'Its brand (before the deletion, for a deleted product).', resolve: (row) => row.brandId }),
    categoryId: t.int({ nullable: true, description: 'Its category (before the deletion, for a deleted product).', resolve: (row) => row.categoryId }),
    updatedAt: t.string({
      nullable: true,
      description: "The product's updatedAt after the change (its ETag's time); null when deleted.",
      resolve: (row) => (row.body.updatedAt as string | null) ?? null,
    }),
    changedFields: t.stringList({
      description:
        'The fields whose values changed, as the product history names them (name, status, templateFields.<id>, ...); at most every field of its template.',
      resolve: (row) => (row.body.changedFields as string[] | undefined) ?? [],
    }),
    actor: t.string({ description: 'Who made the change: key:<id>, member:<id> or system:<job>.', resolve: (row) => String(row.body.actor) }),
    at: t.string({ description: 'When the change was made (RFC 3339).', resolve: atOf }),
  }),
});

/** Positions are digits; anything else is refused before a stream opens. */
function parsePosition(value: string | null | undefined, field: string): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (!/^\d{1,15}$/.test(value)) throw new DomainError('validation_failed', `${field}: not a position`, [{ field, message: 'must be a position (digits)' }]);
  return Number(value);
}

/** Opens a stream through the transport's hub (graphql-stream.ts); a subscription sent to the JSON endpoint is told where streams are served. */
async function openStream(gql: GqlContext, scope: StreamScope, after: string | null | undefined): Promise<AsyncIterable<LiveRow>> {
  const live = gql.live;
  if (!live) {
    throw new GraphQLError('Subscriptions are served as server-sent events: send Accept: text/event-stream (docs/graphql.md "Live updates").', {
      extensions: { code: 'validation_failed' },
    });
  }
  const key = keyOf(gql.ctx.actor);
  if (!key) throw new DomainError('forbidden', 'Streams are opened with an API key');
  const position = parsePosition(after, 'after') ?? parsePosition(live.lastEventId, 'Last-Event-ID');
  live.stream = await live.hub.openStream(key, scope, position);
  return live.stream;
}

const AFTER = 'Resume after this position (see the field description); without it, updates committed from now on.';

builder.subscriptionType({
  description:
    'Live updates over server-sent events (docs/graphql.md "Live updates"): send the document with Accept: text/event-stream to /graphql (POST, or GET for EventSource with a `token` from createStreamToken). Each update is one committed change; the same limits as queries apply to the document.',
});

builder.subscriptionFields((t) => ({
  libraryEvents: t.field({
    type: LibraryEventUpdateRef,
    description: `The team's library events (spec 6.2), or those of files in a folder's subtree. Any role. ${RESUME}`,
    args: {
      folderId: t.arg.int({
        description: "Only events of files in this folder or below it (a move counts for both folders); another team's folder matches nothing.",
      }),
      after: t.arg.string({ description: AFTER }),
    },
    subscribe: (_root, args, gql) => openStream(gql, { stream: 'library', folderId: args.folderId ?? null }, args.after),
    resolve: (row) => row,
  }),
  approvalProgress: t.field({
    type: ApprovalProgressUpdateRef,
    description: `An approval task's callbacks (spec 6.3) in the order they are sent, or every task's of the team. Any role. ${RESUME}`,
    args: {
      taskId: t.arg.string({ description: "Only this task's callbacks; another team's task matches nothing." }),
      after: t.arg.string({ description: AFTER }),
    },
    subscribe: (_root, args, gql) => openStream(gql, { stream: 'approval', taskId: args.taskId ?? null }, args.after),
    resolve: (row) => row,
  }),
  productChanges: t.field({
    type: ProductChangeUpdateRef,
    description: `Product changes (created, updated, published, unpublished, deleted, template upgraded) of the team, a brand or a category. view_only and usable keys get only changes of products that were published before or after the change (the drafts rule of products, checked again as the key's role changes). ${RESUME}`,
    args: {
      brandId: t.arg.int({ description: 'Only products of this brand.' }),
      categoryId: t.arg.int({ description: 'Only products of this category (the category itself, not its subtree).' }),
      after: t.arg.string({ description: AFTER }),
    },
    subscribe: (_root, args, gql) => {
      requirePermission(gql.ctx, 'products:read');
      return openStream(gql, { stream: 'product', brandId: args.brandId ?? null, categoryId: args.categoryId ?? null }, args.after);
    },
    resolve: (row) => row,
  }),
}));

const StreamTokenRef = builder.objectRef<{ token: string; expiresAt: string }>('StreamToken').implement({
  description: 'A short-lived credential for EventSource, which cannot send an Authorization header.',
  fields: (t) => ({
    token: t.exposeString('token', { description: 'Put it in the stream URL as `token=`; it opens streams as the key that asked for it.' }),
    expiresAt: t.exposeString('expiresAt', { description: "Until when it opens streams (10 minutes, never past the key's expiry); open streams outlive it." }),
  }),
});

builder.mutationFields((t) => ({
  createStreamToken: t.field({
    type: StreamTokenRef,
    description: 'A token that opens live update streams as this key for 10 minutes (docs/graphql.md "Live updates"); a revoked key\'s tokens open nothing.',
    resolve: (_root, _args, gql) => {
      const key = keyOf(gql.ctx.actor);
      if (!key) throw new DomainError('forbidden', 'Stream tokens are issued to API keys');
      return issueStreamToken(gql.core.config.linkSigningSecret!, key);
    },
  }),
}));
