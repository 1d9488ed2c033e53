import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Core } from '../../core/core.ts';
import { FolderSubscribeRequest, MaterialEventTypeItem, MaterialSubscribeRequest } from '../../core/events/subscription.schemas.ts';
import { header } from '../auth.ts';
import { openCommonErrors, openErrorRef, openOk, openOkSchema, openReplayable } from '../open-envelope.ts';
import type { RestResource } from '../resource.ts';
import { bearerSecurity } from '../schemas.ts';

const tags = ['Event subscriptions'];

const FAILURES = `Failures (open envelope, docs/events.md "The endpoints, their answers and failures"): 400 \`invalid_parameter\` (missing or unknown field, wrong type; \`details[]\` names each),
400 \`unknown_operation\`, 400 \`unknown_event_type\`, 400 \`callback_url_invalid\` (not an absolute http(s) URL, or carrying user:password),
400 \`callback_url_unresolvable\`, 400 \`callback_url_not_allowed\` (resolves to a loopback, private, link-local, unique-local or metadata address not in OUTBOUND_ALLOW_HOSTS),
401 \`invalid_credentials\` / \`key_inactive\`, 503 \`service_unavailable\` or \`write_conflict\` (Retry-After). Nothing is stored on any failure.

Idempotency-Key (optional; scope team + API key + endpoint, 24 hours): a repeat with the same key and body, concurrent or later, answers the first result with \`Idempotent-Replayed: true\` and changes nothing; the same key with another body is 409 \`idempotency_key_reused\`; a malformed key is 400 \`invalid_parameter\` naming Idempotency-Key. A failed request does not use up its key.`;

const SubscribeHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        '1-255 characters, not blank, no control characters; the same key and body within 24 hours answers the first result again (Idempotent-Replayed: true); other input: 409 idempotency_key_reused.',
    }),
  ),
});

/** Spec 4.7: the subscription endpoints of Area C. Each handler calls one core operation and wraps its result. */
export async function openSubscriptionRoutes(fastify: FastifyInstance, { core }: { core: Core }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/folder-subscribe',
    {
      schema: {
        operationId: 'folderSubscribe',
        summary: 'Subscribe or unsubscribe folder content updates',
        description: `Subscribes (\`operation\` ADD, the default) the calling key's \`callbackUrl\` to FOLDER_CONTENT_UPDATE callbacks (spec 6.1) of each folder in \`folderIds\` and its whole subtree, or cancels them (DELETE). Subscribing again is a no-op. The endpoint's Standard Webhooks signing secret is created on the first subscription at a URL and is read through GraphQL (\`webhookEndpoints\`) or the CLI (\`webhook list\`).\n\n${FAILURES}\n404 \`folder_not_found\`: a folder id that is not a live folder of the key's team (\`details[]\` lists them).`,
        tags,
        security: bearerSecurity,
        headers: SubscribeHeaders,
        body: Type.Ref('FolderSubscribeRequest'),
        response: { 200: openOkSchema(Type.Boolean({ description: 'Always true on success.' })), 409: openErrorRef, ...openCommonErrors },
      },
    },
    async (request, reply) =>
      openReplayable(reply, request.id, await core.events.subscriptions.changeOnce(request.ctx, 'folder', request.body, header(request, 'idempotency-key'))),
  );

  app.get(
    '/material-automation-event-types',
    {
      schema: {
        operationId: 'materialAutomationEventTypes',
        summary: 'List subscribable team material event types',
        description: 'The five event types of spec 6.2, each with `subscribed`: whether the calling key has an active subscription to it.',
        tags,
        security: bearerSecurity,
        response: {
          200: openOkSchema(Type.Array(Type.Ref('MaterialEventTypeItem'))),
          400: openErrorRef,
          401: openErrorRef,
          414: openErrorRef,
          431: openErrorRef,
          500: openErrorRef,
          503: openErrorRef,
        },
      },
    },
    async (request) => openOk(request.id, await core.events.subscriptions.materialEventTypes(request.ctx)),
  );

  app.post(
    '/material-automation-subscribe',
    {
      schema: {
        operationId: 'materialAutomationSubscribe',
        summary: 'Subscribe or unsubscribe team material events',
        description: `Subscribes (ADD, the default) the calling key's \`callbackUrl\` to each of \`eventTypes\` (spec 6.2), or cancels them (DELETE: by key, callbackUrl and event type). The team must have the subscription capability (\`team enable-subscriptions\`).\n\n${FAILURES}\n403 \`subscriptions_not_enabled\`: the team lacks the capability.`,
        tags,
        security: bearerSecurity,
        headers: SubscribeHeaders,
        body: Type.Ref('MaterialSubscribeRequest'),
        response: { 200: openOkSchema(Type.Boolean({ description: 'Always true on success.' })), 403: openErrorRef, 409: openErrorRef, ...openCommonErrors },
      },
    },
    async (request, reply) =>
      openReplayable(reply, request.id, await core.events.subscriptions.changeOnce(request.ctx, 'material', request.body, header(request, 'idempotency-key'))),
  );
}

/** Named schemas of the subscription endpoints (OpenAPI components). */
const openSubscriptionSchemas = [FolderSubscribeRequest, MaterialSubscribeRequest, MaterialEventTypeItem];

/** The open-subscriptions resource as the app registers it (rest/resource.ts). */
export const openSubscriptionResource: RestResource = { routes: openSubscriptionRoutes, schemas: openSubscriptionSchemas };
