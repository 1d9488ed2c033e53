import { webhookScopeOf } from '../../core/events/webhook-admin.service.ts';
import { type AttemptView, DELIVERY_STATUSES, type DeliveryView, ENDPOINT_STATES, type EndpointView } from '../../core/events/webhook-values.ts';
import { EVENT_TYPES, type EventType, MATERIAL_EVENT_TYPES, SUBSCRIPTION_KINDS } from '../../core/outbox/event-types.ts';
import { builder } from '../builder.ts';
import { countedAs, LIST_BOUNDS, listCost, pageCost } from '../costs.ts';
import { enumFromCore } from '../enums.ts';

const MATERIAL_EVENT_MEANINGS = Object.fromEntries(MATERIAL_EVENT_TYPES.map((t) => [t.code, `Spec 6.2: ${t.desc}`]));

export const EventTypeEnum = enumFromCore('WebhookEventType', {
  description: 'The eventType of a webhook body (docs/events.md).',
  values: EVENT_TYPES,
  describe: {
    ...(MATERIAL_EVENT_MEANINGS as Record<(typeof MATERIAL_EVENT_TYPES)[number]['code'], string>),
    FOLDER_CONTENT_UPDATE: "Spec 6.1: files were added to or removed from a subscribed folder's subtree.",
    APPROVAL: 'Spec 6.3: an approval callback (its eventName says which).',
    WEBHOOK_TEST: 'A test event sent with sendTestWebhookEvent; never subscribed to.',
  } satisfies Record<EventType, string>,
});

const SubscriptionKindEnum = enumFromCore('WebhookSubscriptionKind', {
  description: 'What a subscription is to.',
  values: SUBSCRIPTION_KINDS,
  describe: {
    folder: "A folder's content, its whole subtree (spec 6.1).",
    material: "The team's material events (spec 6.2).",
    approval: 'Approval callbacks (spec 6.3).',
  },
});

const EndpointStateEnum = enumFromCore('WebhookEndpointState', {
  description: 'Whether an endpoint receives events.',
  values: ENDPOINT_STATES,
  describe: {
    active: 'Subscribed: events are sent.',
    unsubscribed:
      'Its last subscription was removed: no new events, while deliveries committed before are still sent; subscribing the URL again makes it active.',
    disabled: 'A 410 Gone answer, or five days of failed deliveries: nothing is sent; re-enable with enableWebhookEndpoint.',
  },
});

const DeliveryStatusEnum = enumFromCore('WebhookDeliveryStatus', {
  description: 'Where a delivery stands.',
  values: DELIVERY_STATUSES,
  describe: {
    pending: 'Waiting for its first attempt or a retry.',
    delivering: 'An attempt is under way.',
    succeeded: 'The receiver answered 2xx.',
    failed: 'Retries exhausted, or the receiver answered 410 Gone.',
  },
});

import { ORDINARY_PAGING_EXPLAINED, pageArgs, pageType, RFC3339_MICROS } from '../shapes.ts';

const SubscriptionRef = builder.objectRef<EndpointView['subscriptions'][number]>('WebhookSubscription').implement({
  description: 'One subscription of an endpoint (spec 4.7, 4.8).',
  fields: (t) => ({
    kind: t.field({ type: SubscriptionKindEnum, description: 'What it is to.', resolve: (s) => s.kind }),
    eventType: t.field({
      type: EventTypeEnum,
      description: 'FOLDER_CONTENT_UPDATE, a MATERIAL_* type of 6.2, or APPROVAL (never WEBHOOK_TEST).',
      resolve: (s) => s.eventType,
    }),
    folderId: t.exposeInt('folderId', { nullable: true, description: 'The subscribed folder (its whole subtree) for `folder` subscriptions; null otherwise.' }),
  }),
});

const EndpointRef = builder.objectRef<EndpointView>('WebhookEndpoint').implement({
  description:
    "Where one API key's callbacks for one URL go, with its signing secret and state (docs/events.md). REST has no equivalent; the CLI has `webhook list`.",
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Endpoint id.' }),
    url: t.exposeString('url', { description: 'The callback URL as subscribed.' }),
    apiKeyId: t.exposeInt('apiKeyId', { description: 'The key that subscribed.' }),
    state: t.field({ type: EndpointStateEnum, description: 'Whether it receives events.', resolve: (e) => e.state }),
    disabledReason: t.exposeString('disabledReason', { nullable: true, description: 'Why the endpoint was disabled; null while active.' }),
    disabledAt: t.exposeString('disabledAt', { nullable: true, description: 'When it was disabled (RFC 3339, UTC, microseconds); null while active.' }),
    failingSince: t.exposeString('failingSince', {
      nullable: true,
      description: 'Start of the current run of failed attempts (RFC 3339); null after a success.',
    }),
    secret: t.exposeString('secret', {
      description:
        'The Standard Webhooks signing secret (`whsec_` + base64), readable by the key that subscribed the endpoint (and manage keys). Verify `webhook-signature` with it (docs/events.md "First webhook in five minutes").',
    }),
    previousSecretExpiresAt: t.exposeString('previousSecretExpiresAt', {
      nullable: true,
      description: 'After a rotation, until when (RFC 3339) the previous secret also signs; null otherwise.',
    }),
    createdAt: t.exposeString('createdAt', { description: RFC3339_MICROS }),
    subscriptions: t.field({
      type: [SubscriptionRef],
      description: `What this endpoint is subscribed to. ${countedAs(LIST_BOUNDS.endpointSubscriptions, 'an estimate: an endpoint has no fixed maximum')}`,
      complexity: listCost(LIST_BOUNDS.endpointSubscriptions),
      resolve: (e) => e.subscriptions,
    }),
  }),
});

const DeliveryRef = builder.objectRef<DeliveryView>('WebhookDelivery').implement({
  description: 'One event for one endpoint, and its state.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Delivery id (a decimal string: a 64-bit integer).' }),
    eventId: t.exposeString('eventId', {
      description: "The event's id (UUID): `eventId` in the body and the `webhook-id` header, the same on every retry and replay.",
    }),
    eventType: t.field({ type: EventTypeEnum, description: "The body's eventType.", resolve: (d) => d.eventType }),
    orderingKey: t.exposeString('orderingKey', { description: 'The key whose events arrive in commit order: `material:<id>`, `folder:<id>` or `task:<id>`.' }),
    sequence: t.exposeInt('sequence', {
      description: "Position in the endpoint's line for the ordering key (the body's `sequence`); a gap tells a receiver it missed one.",
    }),
    status: t.field({ type: DeliveryStatusEnum, description: 'Where the delivery stands.', resolve: (d) => d.status }),
    attempts: t.exposeInt('attempts', { description: 'Attempts made so far.' }),
    nextAttemptAt: t.exposeString('nextAttemptAt', {
      nullable: true,
      description: 'When a pending delivery is next tried (RFC 3339); null otherwise. A delivery waits behind an unfinished earlier one of its line.',
    }),
    lastStatus: t.exposeInt('lastStatus', {
      nullable: true,
      description: 'HTTP status of the last attempt; null when it got no answer (timeout, connection error) or none was made.',
    }),
    lastError: t.exposeString('lastError', { nullable: true, description: 'What went wrong in the last attempt; null after a success.' }),
    createdAt: t.exposeString('createdAt', { description: 'When the event committed (RFC 3339).' }),
    finishedAt: t.exposeString('finishedAt', { nullable: true, description: 'When it succeeded or failed for good; null while pending.' }),
  }),
});

const AttemptRef = builder.objectRef<AttemptView>('WebhookAttempt').implement({
  description: 'One HTTP attempt of a delivery.',
  fields: (t) => ({
    attempt: t.exposeInt('attempt', { description: '1 for the first attempt.' }),
    startedAt: t.exposeString('startedAt', { description: 'RFC 3339.' }),
    durationMs: t.exposeInt('durationMs', { description: 'Milliseconds from sending to the answer (or the failure).' }),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: "The receiver's HTTP status; null when there was no answer." }),
    error: t.exposeString('error', {
      nullable: true,
      description: 'Timeout, connection error, refusal by the outbound guard, or `HTTP <status>`; null on success.',
    }),
    responseExcerpt: t.exposeString('responseExcerpt', { nullable: true, description: "The first 1 KiB of the answer's body." }),
  }),
});

const DeliveryPageRef = pageType('WebhookDeliveryPage', DeliveryRef, {
  description: 'A page of deliveries, newest first.',
  items: 'deliveries',
  pagination: ORDINARY_PAGING_EXPLAINED,
});

const TestEventResultRef = builder.objectRef<{ eventId: string; deliveryId: string }>('WebhookTestEventResult').implement({
  description: 'The test event queued for an endpoint.',
  fields: (t) => ({
    eventId: t.exposeString('eventId', { description: "The test event's id (UUID): `eventId` in its body and the `webhook-id` header." }),
    deliveryId: t.exposeString('deliveryId', { description: 'Its delivery (WebhookDelivery.id): follow its attempts with webhookAttempts.' }),
  }),
});

const ReplayResultRef = builder.objectRef<{ replayed: number }>('WebhookReplayResult').implement({
  description: 'What a replay queued.',
  fields: (t) => ({ replayed: t.exposeInt('replayed', { description: 'Events queued again for the endpoint.' }) }),
});

builder.queryFields((t) => ({
  webhookEndpoints: t.field({
    type: [EndpointRef],
    description: `The calling key's webhook endpoints, or every endpoint of the team for a manage key. Errors: forbidden when the request names a member (X-Shelf-Member). ${countedAs(LIST_BOUNDS.teamList, 'an estimate: a team has no fixed maximum')}`,
    complexity: listCost(LIST_BOUNDS.teamList),
    resolve: (_root, _args, gql) => gql.core.events.webhooks.listEndpoints(webhookScopeOf(gql.ctx)),
  }),
  webhookDeliveries: t.field({
    type: DeliveryPageRef,
    description: "An endpoint's deliveries, newest first. Errors: not_found (not an endpoint this key may see), validation_failed (status, from, to).",
    args: {
      endpointId: t.arg.int({ required: true, description: 'A webhook endpoint id (WebhookEndpoint.id).' }),
      status: t.arg({ type: DeliveryStatusEnum, description: 'Only deliveries in this status.' }),
      from: t.arg.string({ description: 'Only deliveries created at or after this RFC 3339 time.' }),
      to: t.arg.string({ description: 'Only deliveries created before this RFC 3339 time.' }),
      ...pageArgs(t, 'Page number from 1 (default 1).'),
    },
    complexity: pageCost,
    resolve: (_root, args, gql) =>
      gql.core.events.webhooks.listDeliveries(webhookScopeOf(gql.ctx), args.endpointId, {
        status: args.status ?? undefined,
        from: args.from ?? undefined,
        to: args.to ?? undefined,
        page: args.page,
        pageSize: args.pageSize,
      }),
  }),
  webhookAttempts: t.field({
    type: [AttemptRef],
    description: `Every attempt of one delivery, in order. Errors: not_found. ${countedAs(LIST_BOUNDS.deliveryAttempts, 'an estimate: retries follow the retry schedule, replays add more')}`,
    complexity: listCost(LIST_BOUNDS.deliveryAttempts),
    args: { deliveryId: t.arg.string({ required: true, description: 'A delivery id (WebhookDelivery.id).' }) },
    resolve: (_root, args, gql) => gql.core.events.webhooks.listAttempts(webhookScopeOf(gql.ctx), args.deliveryId),
  }),
}));

builder.mutationFields((t) => ({
  replayWebhookEvents: t.field({
    type: ReplayResultRef,
    description:
      'Sends again one event (`eventId`) or every event of a range (`from`, optionally `to`; at most 30 days back, at most 10,000 events) that this endpoint was sent before, with the same eventId. Errors: not_found, validation_failed, payload_too_large.',
    args: {
      endpointId: t.arg.int({ required: true, description: 'A webhook endpoint id (WebhookEndpoint.id).' }),
      eventId: t.arg.string({ description: 'One event to send again (UUID).' }),
      from: t.arg.string({ description: 'Start of the range (RFC 3339), instead of eventId.' }),
      to: t.arg.string({ description: 'End of the range (RFC 3339, exclusive); default now.' }),
    },
    resolve: (_root, args, gql) =>
      gql.core.events.webhooks.replay(webhookScopeOf(gql.ctx), args.endpointId, {
        eventId: args.eventId ?? undefined,
        from: args.from ?? undefined,
        to: args.to ?? undefined,
      }),
  }),
  sendTestWebhookEvent: t.field({
    type: TestEventResultRef,
    description:
      'Sends a signed test event to the endpoint through the same guarded, recorded and retried delivery as every event: body `{eventId, eventType: "WEBHOOK_TEST", eventTime, actor, test: true, payload: {endpointId, message}, sequence}`, on a line of its own (ordering key `test:<endpointId>`), so it never holds back real events. Its attempts appear in webhookDeliveries and webhookAttempts. Errors: not_found (not an endpoint this key may see), validation_failed (reason endpoint_disabled: enable it first).',
    args: { endpointId: t.arg.int({ required: true, description: 'A webhook endpoint id (WebhookEndpoint.id).' }) },
    resolve: (_root, args, gql) => gql.core.events.webhooks.sendTestEvent({ ...webhookScopeOf(gql.ctx), actor: gql.ctx.actor }, args.endpointId),
  }),
  rotateWebhookSecret: t.field({
    type: EndpointRef,
    description:
      'Gives the endpoint a new secret; the previous one keeps signing for 24 hours (both signatures are sent), so a receiver can switch without losing a delivery. Errors: not_found.',
    args: { endpointId: t.arg.int({ required: true, description: 'A webhook endpoint id (WebhookEndpoint.id).' }) },
    resolve: (_root, args, gql) => gql.core.events.webhooks.rotateSecret(webhookScopeOf(gql.ctx), args.endpointId),
  }),
  enableWebhookEndpoint: t.field({
    type: EndpointRef,
    description: 'Re-enables a disabled endpoint; its pending deliveries resume. Errors: not_found.',
    args: { endpointId: t.arg.int({ required: true, description: 'A webhook endpoint id (WebhookEndpoint.id).' }) },
    resolve: (_root, args, gql) => gql.core.events.webhooks.enable(webhookScopeOf(gql.ctx), args.endpointId),
  }),
}));
