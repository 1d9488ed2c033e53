import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Core } from '../../core/core.ts';
import { invalid } from '../../core/platform/errors.ts';
import { header } from '../auth.ts';
import { openCommonErrors, openOk, openOkSchema, openReplayable } from '../open-envelope.ts';
import type { RestResource } from '../resource.ts';
import { bearerSecurity } from '../schemas.ts';
import { sendStreamedArray } from '../streamed-page.ts';

const SERVICES = ['listTemplates', 'createApproval', 'taskStatusQuery', 'subscriptionQuery', 'subscriptionChange'] as const;

const ApprovalHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'createApproval and subscriptionChange (ignored by the read services): 1-255 characters, not blank, no control characters. The same key and body within 24 hours answers the first result again with Idempotent-Replayed: true, without a second task or download; other input: 400 invalid_payload:idempotency_key_reused.',
    }),
  ),
});

const ApprovalRequest = Type.Object(
  {
    service: Type.String({ description: `One of ${SERVICES.join(', ')}.` }),
    templateId: Type.Optional(Type.String({ description: 'createApproval: the template (listTemplates `id`).' })),
    createdBy: Type.Optional(
      Type.Union([Type.String(), Type.Integer()], { description: "createApproval: the initiating member's user id (a member of the key's team)." }),
    ),
    assets: Type.Optional(
      Type.Array(Type.Object({}, { additionalProperties: true }), {
        description: 'createApproval: `{name?, url, size?, mimeType?, extension?}` each; url public http(s), unique.',
      }),
    ),
    sourceContext: Type.Optional(Type.Unknown({ description: 'createApproval: any business context, kept with the task.' })),
    reason: Type.Optional(Type.String({ description: 'createApproval: why the task is created.' })),
    taskId: Type.Optional(Type.String({ description: 'taskStatusQuery: the task id createApproval returned.' })),
    operation: Type.Optional(Type.String({ description: 'subscriptionChange: `ADD` (default) or `DELETE`.' })),
    callbackUrl: Type.Optional(Type.String({ description: 'subscriptionChange ADD: where approval callbacks (spec 6.3) go.' })),
  },
  {
    $id: 'ApprovalRequest',
    additionalProperties: true,
    examples: [
      {
        service: 'createApproval',
        templateId: '6c1f2a4e-8d35-4a51-9f0e-2d6b8c7e1a90',
        createdBy: '42',
        assets: [{ name: 'banner.png', url: 'https://cdn.example.com/banner.png' }],
        reason: 'Spring campaign',
      },
    ],
  },
);

/** The fields of a request besides `service`: each service's core operation validates them. */
function fieldsOf(body: Record<string, unknown>): Record<string, unknown> {
  const { service: _service, ...rest } = body;
  return rest;
}

/** Spec 4.8: the one approval endpoint. It dispatches on `service` and calls one core operation each. */
export async function approvalRoutes(fastify: FastifyInstance, { core }: { core: Core }): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '',
    {
      schema: {
        operationId: 'approval',
        summary: 'The approval endpoint (five services)',
        description: `One endpoint for Area D (spec 4.8), the service named by \`service\`:
- \`listTemplates\`: every approval template of the team, oldest first, written as it is read (docs/approvals.md "Listing templates"; 503 \`memory_budget_exhausted\` with Retry-After when the memory budget stays taken) (id, name, description, enabled, usageCount, autoImportEnabled, targetFolder, workflow {nodes: [{nodeId, name, signMode, approvers, copyTo, timeout {hours, transferTo}}]}).
- \`createApproval\` {templateId, createdBy, assets, sourceContext?, reason?}: downloads each asset through the outbound guard, records its sha256, starts the first node; result {taskId}.
- \`taskStatusQuery\` {taskId}: taskId, status, statusLabel, progressPercent, currentNodeName, currentNodeSignMode, currentNodeProgress, currentNodeApprovers, operator, updatedAt (and round, currentNodeId, currentNodeRole).
- \`subscriptionQuery\`: {subscribed, callbackUrl, state, disabledReason, createdAt} for the calling key.
- \`subscriptionChange\` {operation, callbackUrl}: ADD (callbackUrl required) or DELETE the key's approval callbacks; result as subscriptionQuery.

Failures (code, message, result null, traceId): 400 \`invalid_payload:<reason>\` (reasons in docs/approvals.md: invalid_json, unknown_service, invalid_parameter, assets_empty, asset_url_empty, asset_url_duplicate, asset_url_invalid, asset_url_not_public, asset_url_unresolvable, asset_download_timeout, asset_too_large, asset_download_failed, template_disabled, not_a_team_member, callback_url_*, missing_callback_url, missing_task_id); 401 invalid_credentials / key_inactive; 404 template_not_found, task_not_found, route_not_found; 413 payload_too_large; 500 internal_error; 503 service_unavailable (PostgreSQL unreachable) or write_conflict, with Retry-After. Nothing is created on any failure.

Idempotency-Key (createApproval, subscriptionChange): scope team + API key + service, 24 hours. A repeat with the same key and body, concurrent or later, answers the first result with \`Idempotent-Replayed: true\` (a concurrent repeat waits for the first to finish; createApproval downloads once); the same key with another body is 400 \`invalid_payload:idempotency_key_reused\`; a malformed key 400 \`invalid_payload:invalid_parameter\` naming Idempotency-Key. A failed request does not use up its key.`,
        tags: ['Approvals'],
        security: bearerSecurity,
        headers: ApprovalHeaders,
        body: Type.Ref('ApprovalRequest'),
        response: {
          200: openOkSchema(Type.Unknown({ description: 'Depends on the service (see above).' })),
          ...openCommonErrors,
        },
      },
    },
    async (request, reply) => {
      const body = request.body as Record<string, unknown> | null;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('(body)', 'must be a JSON object', 'invalid_json');
      const ctx = request.ctx;
      switch (body.service) {
        case 'listTemplates':
          // every template, without paging (the spec's shape): written in batches as they are read
          return sendStreamedArray(reply, {
            page: await core.approvals.templates.listAll(ctx),
            budget: core.platform.answerBudget,
            serializeItem: JSON.stringify,
            head: '{"code":"0","message":"success","result":[',
            tail: `],"traceId":${JSON.stringify(request.id)}}`,
          });
        case 'createApproval':
          return openReplayable(reply, request.id, await core.approvals.tasks.create(ctx, fieldsOf(body), header(request, 'idempotency-key')));
        case 'taskStatusQuery':
          return openOk(request.id, await core.approvals.tasks.statusQuery(ctx, fieldsOf(body)));
        case 'subscriptionQuery':
          return openOk(request.id, await core.events.subscriptions.approvalSubscription(ctx));
        case 'subscriptionChange':
          return openReplayable(
            reply,
            request.id,
            await core.events.subscriptions.changeOnce(ctx, 'approval', fieldsOf(body), header(request, 'idempotency-key')),
          );
        default:
          throw invalid('service', `must be one of ${SERVICES.join(', ')}`, 'unknown_service');
      }
    },
  );
}

const approvalSchemas = [ApprovalRequest];

/** The approval resource as the app registers it (rest/resource.ts). */
export const approvalResource: RestResource = { routes: approvalRoutes, schemas: approvalSchemas };
