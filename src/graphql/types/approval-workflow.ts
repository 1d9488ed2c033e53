import { APPROVAL_LIMITS, type ApprovalTemplateInput, type ApprovalTemplateView, type WorkflowNode } from '../../core/approvals/approval.schemas.ts';
import { withoutNulls } from '../args.ts';
import { builder } from '../builder.ts';
import { countedAs, listCost } from '../costs.ts';
import { SignModeEnum } from './approval-enums.ts';

/*
 * An approval template's workflow as typed GraphQL objects, read and written: the workflow file
 * of CONTRACT.md with its fields named, so clients need no JSON of their own.
 */

const APPROVALS_DOCS = 'docs/approvals.md';

const TimeoutRef = builder.objectRef<NonNullable<WorkflowNode['timeout']>>('ApprovalNodeTimeout').implement({
  description: 'What happens when a node waits too long.',
  fields: (t) => ({
    hours: t.exposeFloat('hours', { description: `Hours (may be fractional) after the node starts, at most ${APPROVAL_LIMITS.maxTimeoutHours}.` }),
    transferTo: t.exposeInt('transferTo', { nullable: true, description: 'The member the node moves to then; null: the task times out where it is.' }),
  }),
});

const WorkflowNodeRef = builder.objectRef<WorkflowNode>('ApprovalWorkflowNode').implement({
  description: 'One node of an approval workflow, in order.',
  fields: (t) => ({
    nodeId: t.exposeString('nodeId', { description: '`node-1`, `node-2`, ... by position.' }),
    name: t.exposeString('name', { description: '1-64 characters.' }),
    signMode: t.field({ type: SignModeEnum, description: 'How its approvers decide together.', resolve: (node) => node.signMode }),
    approvers: t.exposeIntList('approvers', { description: `Member ids, 1-${APPROVAL_LIMITS.approversPerNode}.` }),
    copyTo: t.exposeIntList('copyTo', { description: `Member ids told of the node, at most ${APPROVAL_LIMITS.copyToPerNode}; empty when none.` }),
    timeout: t.field({ type: TimeoutRef, nullable: true, description: 'Null: the node waits as long as it takes.', resolve: (node) => node.timeout }),
  }),
});

export const WorkflowRef = builder.objectRef<ApprovalTemplateView['workflow']>('ApprovalWorkflow').implement({
  description: `The nodes an approval task goes through, in order (${APPROVALS_DOCS}).`,
  fields: (t) => ({
    nodes: t.field({
      type: [WorkflowNodeRef],
      description: `1-${APPROVAL_LIMITS.nodes} nodes. ${countedAs(APPROVAL_LIMITS.nodes, `a workflow has at most ${APPROVAL_LIMITS.nodes} nodes`)}`,
      complexity: listCost(APPROVAL_LIMITS.nodes),
      resolve: (workflow) => workflow.nodes,
    }),
  }),
});

const TimeoutInput = builder.inputType('ApprovalNodeTimeoutInput', {
  description: 'What happens when a node waits too long.',
  fields: (t) => ({
    hours: t.float({
      required: true,
      description: `Hours after the node starts: more than 0, at most ${APPROVAL_LIMITS.maxTimeoutHours}; may be fractional (0.001 hours is 3.6 seconds).`,
    }),
    transferTo: t.int({
      description:
        'A member of the team the node moves to then (else validation_failed, reason not_a_team_member); null or omitted: the task times out where it is.',
    }),
  }),
});

const WorkflowNodeInput = builder.inputType('ApprovalWorkflowNodeInput', {
  description: 'One node of a workflow; node ids (`node-1`, ...) follow the order.',
  fields: (t) => ({
    name: t.string({ required: true, description: '1-64 characters.' }),
    signMode: t.field({ type: SignModeEnum, required: true, description: 'How its approvers decide together.' }),
    approvers: t.intList({
      required: true,
      description: `Member ids of the team, 1-${APPROVAL_LIMITS.approversPerNode} (repeats count once); a stranger is validation_failed (not_a_team_member) naming the field.`,
    }),
    copyTo: t.intList({ description: `Member ids of the team told of the node, at most ${APPROVAL_LIMITS.copyToPerNode}.` }),
    timeout: t.field({ type: TimeoutInput, description: 'Null or omitted: the node waits as long as it takes.' }),
  }),
});

const WorkflowInput = builder.inputType('ApprovalWorkflowInput', {
  description: 'The nodes an approval task goes through, in order.',
  fields: (t) => ({ nodes: t.field({ type: [WorkflowNodeInput], required: true, description: `1-${APPROVAL_LIMITS.nodes} nodes.` }) }),
});

export const TemplateInput = builder.inputType('ApprovalTemplateInput', {
  description:
    'An approval template: the workflow file of CONTRACT.md as typed fields. A wrong value is validation_failed naming its path (e.g. `workflow.nodes[0].name`), and nothing is stored.',
  fields: (t) => ({
    name: t.string({ required: true, description: `1-${APPROVAL_LIMITS.nameLength} characters.` }),
    description: t.string({ description: 'At most 1024 characters; default empty.' }),
    enabled: t.boolean({ description: 'Default true.' }),
    autoImportEnabled: t.boolean({ description: "Import an approved task's final assets into targetFolder. Default false." }),
    targetFolder: t.string({ description: 'Library folder path (`/a/b`), at most 1024 characters; default empty: the library root.' }),
    createdBy: t.int({ description: 'A member of the team recorded as its creator (createApprovalTemplate only; updates keep the creator).' }),
    workflow: t.field({ type: WorkflowInput, required: true, description: 'Its nodes.' }),
  }),
});

type TemplateArgs = typeof TemplateInput.$inferInput;

/**
 * The typed input as the core's template input: GraphQL sends null for what a client leaves out,
 * which the core reads as "not given" (a null timeout stays: it means none). The core validates
 * every value, as it does the workflow file, so the rules and the error paths are the same.
 */
export function templateInputOf(input: TemplateArgs): ApprovalTemplateInput {
  return {
    ...withoutNulls({
      name: input.name,
      description: input.description,
      enabled: input.enabled,
      autoImportEnabled: input.autoImportEnabled,
      targetFolder: input.targetFolder,
      createdBy: input.createdBy,
    }),
    name: input.name,
    workflow: {
      nodes: input.workflow.nodes.map((node) => ({
        ...withoutNulls({ copyTo: node.copyTo }),
        name: node.name,
        signMode: node.signMode,
        approvers: node.approvers,
        ...(node.timeout === undefined
          ? {}
          : { timeout: node.timeout === null ? null : { hours: node.timeout.hours, ...withoutNulls({ transferTo: node.timeout.transferTo }) } }),
      })),
    },
  };
}
