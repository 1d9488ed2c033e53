import { type Static, Type } from 'typebox';
import { literalUnion } from '../platform/schema-shapes.ts';
import { SIGN_MODES, type SignMode } from './approval-values.ts';

/** Limits of approval templates and tasks (docs/approvals.md). */
export const APPROVAL_LIMITS = { nodes: 20, approversPerNode: 50, copyToPerNode: 50, assets: 50, maxTimeoutHours: 8760, nameLength: 128 } as const;

/** A member id as the workflow file writes it: `"12"` or `12`. */
const memberId = Type.Union([Type.Integer({ minimum: 1, maximum: 2147483647 }), Type.String({ pattern: '^[1-9][0-9]{0,9}$' })], {
  description: 'A member id of the team.',
});

export const WorkflowNodeInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    signMode: literalUnion(SIGN_MODES, { description: '`and`: every approver must approve; `or`: the first decision decides.' }),
    approvers: Type.Array(memberId, { minItems: 1, maxItems: APPROVAL_LIMITS.approversPerNode }),
    copyTo: Type.Optional(Type.Array(memberId, { maxItems: APPROVAL_LIMITS.copyToPerNode })),
    timeout: Type.Optional(
      Type.Union([
        Type.Null(),
        Type.Object(
          {
            hours: Type.Number({
              exclusiveMinimum: 0,
              maximum: APPROVAL_LIMITS.maxTimeoutHours,
              description: 'May be fractional: 0.001 hours is 3.6 seconds.',
            }),
            transferTo: Type.Optional(Type.Union([memberId, Type.Null()])),
          },
          { additionalProperties: false },
        ),
      ]),
    ),
  },
  { additionalProperties: false },
);

/** The approval workflow file of CONTRACT.md (`approval-template create --file`), also GraphQL's template input. */
export const ApprovalTemplateInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: APPROVAL_LIMITS.nameLength }),
    description: Type.Optional(Type.String({ maxLength: 1024 })),
    enabled: Type.Optional(Type.Boolean()),
    autoImportEnabled: Type.Optional(Type.Boolean()),
    targetFolder: Type.Optional(Type.String({ maxLength: 1024 })),
    createdBy: Type.Optional(memberId),
    workflow: Type.Object({ nodes: Type.Array(WorkflowNodeInput, { minItems: 1, maxItems: APPROVAL_LIMITS.nodes }) }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
export type ApprovalTemplateInput = Static<typeof ApprovalTemplateInput>;

/** A workflow node as stored (ids as numbers). */
export interface WorkflowNode {
  nodeId: string;
  name: string;
  signMode: SignMode;
  approvers: number[];
  copyTo: number[];
  timeout: { hours: number; transferTo: number | null } | null;
}

export interface Workflow {
  nodes: WorkflowNode[];
}

/** One asset of createApproval (spec 4.8). */
export const ApprovalAssetInput = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 255, description: 'Recommended: the original filename.' })),
    url: Type.String({ description: 'Publicly reachable http(s) URL, unique within the request.' }),
    size: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.String(), Type.Null()])),
    mimeType: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    extension: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
  },
  { additionalProperties: false },
);

/** Spec 4.8 createApproval (besides `service`). */
export const CreateApprovalInput = Type.Object(
  {
    templateId: Type.String({ minLength: 1, maxLength: 64 }),
    createdBy: memberId,
    assets: Type.Array(ApprovalAssetInput, { maxItems: APPROVAL_LIMITS.assets }),
    sourceContext: Type.Optional(Type.Unknown()),
    reason: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type CreateApprovalInput = Static<typeof CreateApprovalInput>;

/** An approval template as listTemplates (spec 2.7) and GraphQL show it. */
export interface ApprovalTemplateView {
  id: string;
  name: string;
  description: string;
  enabled: boolean;
  usageCount: number;
  autoImportEnabled: boolean;
  targetFolder: string;
  workflow: Workflow;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}
