import type { ApprovalTemplateView } from '../../core/approvals/approval.schemas.ts';
import type { TaskStatusView } from '../../core/approvals/approval-task.service.ts';
import { APPROVAL_TEMPLATES_PAGE_SIZE } from '../../core/approvals/approval-template.service.ts';
import type { ApprovalActionResult } from '../../core/approvals/approval-values.ts';
import { collectPage } from '../../core/platform/answer-budget.ts';
import { builder } from '../builder.ts';
import { countedAs, LIST_BOUNDS, listCost } from '../costs.ts';
import { pageQuery, RFC3339_MICROS, timestampFields } from '../shapes.ts';
import { ApproverStatusEnum, DecisionEnum, NodeRoleEnum, SignModeEnum, StatusEnum } from './approval-enums.ts';
import { TemplateInput, templateInputOf, WorkflowRef } from './approval-workflow.ts';

const TemplateRef = builder.objectRef<ApprovalTemplateView>('ApprovalTemplate').implement({
  description: 'An approval template (spec 2.7; `POST /approval` listTemplates returns the same). docs/approvals.md describes the workflow.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Template id (a UUID): `templateId` of createApproval.' }),
    name: t.exposeString('name', { description: '1-128 characters.' }),
    description: t.exposeString('description', { description: 'Free text; empty when none.' }),
    enabled: t.exposeBoolean('enabled', { description: 'A disabled template starts no task (createApproval answers invalid_payload:template_disabled).' }),
    usageCount: t.exposeInt('usageCount', { description: 'Tasks created from it; refused attempts are not counted.' }),
    autoImportEnabled: t.exposeBoolean('autoImportEnabled', {
      description: "When true, an approved task's final assets are imported into targetFolder of the library.",
    }),
    targetFolder: t.exposeString('targetFolder', { description: 'Library folder path (`/a/b`) for auto-import; empty means the library root.' }),
    workflow: t.field({ type: WorkflowRef, description: 'Its nodes, in order.', resolve: (tpl) => tpl.workflow }),
    createdBy: t.exposeString('createdBy', {
      nullable: true,
      description: 'The member who created it, as a decimal string; null when created by an operator without one.',
    }),
    ...timestampFields(t, RFC3339_MICROS),
  }),
});

const ApproverStateRef = builder.objectRef<TaskStatusView['currentNodeApprovers'][number]>('ApprovalApproverState').implement({
  description: 'An approver of the current node and where they stand.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Member id (decimal string).' }),
    name: t.exposeString('name', { description: 'Member name.' }),
    state: t.field({ type: ApproverStatusEnum, description: 'Whether they decided, and how.', resolve: (approver) => approver.state }),
  }),
});

const ProgressRef = builder.objectRef<TaskStatusView['currentNodeProgress']>('ApprovalNodeProgress').implement({
  description: 'Decisions on the current node.',
  fields: (t) => ({
    approved: t.exposeInt('approved', { description: 'Approvers who approved.' }),
    rejected: t.exposeInt('rejected', { description: 'Approvers who rejected.' }),
    pending: t.exposeInt('pending', { description: 'Approvers still to decide.' }),
  }),
});

const OperatorRef = builder.objectRef<NonNullable<TaskStatusView['operator']>>('ApprovalOperator').implement({
  description: 'The member who acted last.',
  fields: (t) => ({ id: t.exposeString('id', { description: 'Member id (decimal string).' }), name: t.exposeString('name', { description: 'Member name.' }) }),
});

const TaskRef = builder.objectRef<TaskStatusView>('ApprovalTask').implement({
  description: 'An approval task as taskStatusQuery (spec 2.7) returns it, plus its round and current node id and role.',
  fields: (t) => ({
    taskId: t.exposeString('taskId', { description: 'Task id (a UUID).' }),
    status: t.field({ type: StatusEnum, description: 'Where the task stands.', resolve: (task) => task.status }),
    statusLabel: t.exposeString('statusLabel', { description: 'The status in words.' }),
    progressPercent: t.exposeInt('progressPercent', { description: 'Share of workflow nodes completed, 0-100.' }),
    currentNodeName: t.exposeString('currentNodeName', { nullable: true, description: 'Null once the task is APPROVED or CANCELED.' }),
    currentNodeSignMode: t.field({
      type: SignModeEnum,
      nullable: true,
      description: "How the current node's approvers decide; null once finished.",
      resolve: (task) => task.currentNodeSignMode,
    }),
    currentNodeProgress: t.field({ type: ProgressRef, description: 'Decisions on the current node.', resolve: (task) => task.currentNodeProgress }),
    currentNodeApprovers: t.field({
      type: [ApproverStateRef],
      description: `The current node's approvers; empty once finished. ${countedAs(LIST_BOUNDS.approversPerNode, 'a node has at most 50 approvers')}`,
      complexity: listCost(LIST_BOUNDS.approversPerNode),
      resolve: (task) => task.currentNodeApprovers,
    }),
    operator: t.field({ type: OperatorRef, nullable: true, description: 'Who acted last; null before any decision.', resolve: (task) => task.operator }),
    updatedAt: t.exposeString('updatedAt', { description: RFC3339_MICROS }),
    round: t.exposeInt('round', { description: '1, plus one for each rejection.' }),
    currentNodeId: t.exposeString('currentNodeId', { nullable: true, description: 'As in callbacks: `node-2`, `node-2-resubmit-2`, `node-2-rereview-2`.' }),
    currentNodeRole: t.field({
      type: NodeRoleEnum,
      nullable: true,
      description: "The current node's role; null once finished.",
      resolve: (task) => task.currentNodeRole,
    }),
  }),
});

const DecisionResultRef = builder.objectRef<ApprovalActionResult>('ApprovalActionResult').implement({
  description: 'The task after a decision, resubmission or cancel.',
  fields: (t) => ({
    taskId: t.exposeString('taskId', { description: 'Task id.' }),
    status: t.field({ type: StatusEnum, description: 'The task status after the action.', resolve: (result) => result.status }),
  }),
});

const ResubmitAssetInput = builder.inputType('ApprovalResubmitAssetInput', {
  description: 'A new version of an asset, downloaded from a public URL through the outbound guard (as createApproval).',
  fields: (t) => ({
    url: t.string({ required: true, description: 'Public http(s) URL.' }),
    name: t.string({ description: "File name; default: the URL's last path segment." }),
    position: t.int({
      description:
        "Which of the task's assets this replaces: its 0-based index in createApproval's `assets`. Give it on every item or on none; with none, the list must hold every asset of the task in order. Errors: validation_failed (resubmit_count_mismatch, resubmit_positions_mixed, resubmit_position_out_of_range, resubmit_position_duplicate).",
    }),
  }),
});

builder.queryFields((t) => ({
  approvalTemplates: t.field({
    type: [TemplateRef],
    description: `The team's approval templates, oldest first, one page of them (REST: POST /approval listTemplates answers them all). A page holds ${APPROVAL_TEMPLATES_PAGE_SIZE} by default, so a team with no more templates gets them all; a page shorter than pageSize is the last. Errors: validation_failed (page, pageSize), response_too_large (docs/graphql.md "Limits"). ${countedAs(LIST_BOUNDS.teamList, 'at most one page of 100')}`,
    args: {
      page: t.arg.int({ description: 'Page from 1 (default 1).' }),
      pageSize: t.arg.int({ description: `Templates per page (default ${APPROVAL_TEMPLATES_PAGE_SIZE}, at most 100).` }),
    },
    complexity: listCost(LIST_BOUNDS.teamList),
    resolve: async (_root, args, gql) => (await collectPage(gql.ctx, await gql.core.approvals.templates.page(gql.ctx, pageQuery(args)))).items,
  }),
  approvalTask: t.field({
    type: TaskRef,
    description: 'A task of the team (REST: POST /approval taskStatusQuery). Errors: not_found.',
    args: { taskId: t.arg.string({ required: true, description: 'Task id (UUID).' }) },
    resolve: (_root, args, gql) => gql.core.approvals.tasks.status(gql.ctx, args.taskId),
  }),
}));

builder.mutationFields((t) => ({
  createApprovalTemplate: t.field({
    type: TemplateRef,
    description:
      'Creates a template from the workflow structure of CONTRACT.md (manage role). Errors: forbidden, validation_failed (reason not_a_team_member names the field of a stranger).',
    args: { input: t.arg({ type: TemplateInput, required: true, description: 'The template and its workflow.' }) },
    resolve: (_root, args, gql) => gql.core.approvals.templates.createForCaller(gql.ctx, templateInputOf(args.input)),
  }),
  updateApprovalTemplate: t.field({
    type: TemplateRef,
    description:
      "Replaces a template's definition (manage role); tasks already started keep their frozen copy. Errors: not_found, forbidden, validation_failed.",
    args: {
      templateId: t.arg.string({ required: true, description: 'Template id.' }),
      input: t.arg({ type: TemplateInput, required: true, description: 'The whole new definition, as createApprovalTemplate takes it.' }),
    },
    resolve: (_root, args, gql) => gql.core.approvals.templates.update(gql.ctx, args.templateId, templateInputOf(args.input)),
  }),
  setApprovalTemplateEnabled: t.field({
    type: TemplateRef,
    description: 'Enables or disables a template (manage role). Errors: not_found, forbidden.',
    args: {
      templateId: t.arg.string({ required: true, description: 'Template id.' }),
      enabled: t.arg.boolean({ required: true, description: 'The new state.' }),
    },
    resolve: (_root, args, gql) => gql.core.approvals.templates.setEnabled(gql.ctx, args.templateId, args.enabled),
  }),
  decideApproval: t.field({
    type: DecisionResultRef,
    description:
      'The member named by the X-Shelf-Member header (key role editable or higher) approves or rejects the current node. Errors: forbidden (reasons member_required, not_a_pending_approver, task_finished), validation_failed (invalid_decision), not_found.',
    args: {
      taskId: t.arg.string({ required: true, description: 'Task id.' }),
      decision: t.arg({ type: DecisionEnum, required: true, description: 'Approve or reject.' }),
      comment: t.arg.string({ description: 'Shown in the APPROVER_SUBMITTED callback.' }),
    },
    resolve: (_root, args, gql) => gql.core.approvals.actions.decide(gql.ctx, { taskId: args.taskId, decision: args.decision, comment: args.comment }),
  }),
  resubmitApproval: t.field({
    type: DecisionResultRef,
    description:
      "The task's submitter (X-Shelf-Member) sends new versions of the assets at the resubmit step: every asset in the task's order, or the ones named by `position` (the others keep their version). Errors: forbidden (not_the_resubmitter, task_finished), validation_failed (resubmit_count_mismatch, resubmit_positions_mixed, resubmit_position_out_of_range, resubmit_position_duplicate, and the download reasons of createApproval), not_found.",
    args: {
      taskId: t.arg.string({ required: true, description: 'Task id.' }),
      assets: t.arg({ type: [ResubmitAssetInput], required: true, description: "New versions: all of the task's assets in order, or the named positions." }),
      comment: t.arg.string({ description: 'Shown in the SUBMITTER_RESUBMITTED callback.' }),
    },
    resolve: (_root, args, gql) =>
      gql.core.approvals.actions.resubmit(gql.ctx, {
        taskId: args.taskId,
        comment: args.comment,
        urls: args.assets.map((a) => ({ url: a.url, name: a.name ?? undefined, position: a.position })),
      }),
  }),
  cancelApproval: t.field({
    type: DecisionResultRef,
    description: "The task's submitter (X-Shelf-Member) cancels an unfinished task. Errors: forbidden (not_the_submitter, task_finished), not_found.",
    args: { taskId: t.arg.string({ required: true, description: 'Task id.' }) },
    resolve: (_root, args, gql) => gql.core.approvals.actions.cancel(gql.ctx, args.taskId),
  }),
}));
