import {
  APPROVAL_DECISIONS,
  APPROVAL_STATUSES,
  APPROVER_STATES,
  CALLBACK_EVENT_NAMES,
  CALLBACK_TASK_STATUSES,
  NODE_ROLES,
  SIGN_MODES,
} from '../../core/approvals/approval-values.ts';
import { enumFromCore } from '../enums.ts';

/* The closed sets of Area D as GraphQL enums, built from the core's lists (approval-values.ts). */

const APPROVALS_DOCS = 'docs/approvals.md';

export const StatusEnum = enumFromCore('ApprovalStatus', {
  description: `Where an approval task stands (spec 2.7; ${APPROVALS_DOCS}).`,
  values: APPROVAL_STATUSES,
  describe: {
    PENDING: 'Started; no decision on it yet.',
    PROCESSING: 'In review: a decision was made, the flow goes on.',
    REJECTED: 'An approver rejected it: waiting for the submitter to resubmit.',
    APPROVED: 'Every node approved it; finished.',
    CANCELED: 'Its submitter canceled it; finished.',
  },
});

export const DecisionEnum = enumFromCore('ApprovalDecision', {
  description: 'What an approver decides on the current node.',
  values: APPROVAL_DECISIONS,
  describe: {
    approved: 'Approve: with sign mode OR the node is approved; with AND once every approver approved.',
    rejected: 'Reject: the node is rejected and the task goes back to its submitter to resubmit.',
  },
});

export const ApproverStatusEnum = enumFromCore('ApprovalApproverStatus', {
  description: 'Where an approver of the current node stands.',
  values: APPROVER_STATES,
  describe: { pending: 'Has not decided yet.', approved: 'Approved.', rejected: 'Rejected.' },
});

export const SignModeEnum = enumFromCore('ApprovalSignMode', {
  description: 'How the approvers of a node decide together (spec 2.7).',
  values: SIGN_MODES,
  describe: { and: 'Every approver must approve; one rejection rejects the node.', or: 'The first decision decides the node.' },
});

export const NodeRoleEnum = enumFromCore('ApprovalNodeRole', {
  description: `The role of the node a task is at (spec 2.7; ${APPROVALS_DOCS}).`,
  values: NODE_ROLES,
  describe: {
    normal: 'A node of the workflow, decided by its approvers.',
    resubmit_submitter: 'After a rejection: the submitter resubmits new versions of the assets.',
    resubmit_approver: "After a resubmission: the rejecting node's approvers review again.",
  },
});

export const CallbackEventNameEnum = enumFromCore('ApprovalCallbackEventName', {
  description: `The eventName of an approval callback (spec 6.3; ${APPROVALS_DOCS} "Callbacks"), as subscriptions report it too.`,
  values: CALLBACK_EVENT_NAMES,
  describe: {
    NODE_STARTED: 'A node started (the first node, a normal transition, a transition to a resubmit node).',
    APPROVER_SUBMITTED: 'An approver submitted a decision.',
    NODE_COMPLETED: 'A node was completed (approved or rejected).',
    NODE_TRANSFERRED: 'The flow moved to the next processing node (normal, resubmit, timeout transfer).',
    SUBMITTER_RESUBMITTED: 'The submitter sent updated assets at the resubmit step.',
    TASK_APPROVED: 'The task reached its final approved state.',
    NODE_TIMEOUT: 'A node timed out.',
  },
});

export const CallbackTaskStatusEnum = enumFromCore('ApprovalCallbackTaskStatus', {
  description: 'The taskStatus an approval callback carries (spec 6.3).',
  values: CALLBACK_TASK_STATUSES,
  describe: { PROCESSING: 'The task is in progress.', APPROVED: 'The task is approved.', TIMEOUT: 'A node of the task timed out.' },
});
