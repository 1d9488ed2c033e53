/**
 * The closed sets of values of Area D (spec 2.7, 6.3; docs/approvals.md), written once: the core
 * checks against them, and the GraphQL schema builds its enums from them.
 */

/** A task's status (spec 2.7 States). */
export const APPROVAL_STATUSES = ['PENDING', 'PROCESSING', 'REJECTED', 'APPROVED', 'CANCELED'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** The statuses of a task that can still be decided, resubmitted or canceled. */
export const ACTIVE_APPROVAL_STATUSES: readonly ApprovalStatus[] = ['PENDING', 'PROCESSING', 'REJECTED'];

/** ACTIVE_APPROVAL_STATUSES as an SQL list, for `status in ${ACTIVE_APPROVAL_STATUSES_SQL}` (timers fire on these only). */
export const ACTIVE_APPROVAL_STATUSES_SQL = `(${ACTIVE_APPROVAL_STATUSES.map((status) => `'${status}'`).join(', ')})`;

/** What an approver decides on a node. */
export const APPROVAL_DECISIONS = ['approved', 'rejected'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/** Where an approver of the current node stands (decisions skipped by the node's end are not shown). */
export const APPROVER_STATES = ['pending', 'approved', 'rejected'] as const;
export type ApproverState = (typeof APPROVER_STATES)[number];

/** How a node's approvers decide together (spec 2.7 Sign modes). */
export const SIGN_MODES = ['and', 'or'] as const;
export type SignMode = (typeof SIGN_MODES)[number];

/** The role of the node a task is at (spec 2.7 Node roles). */
export const NODE_ROLES = ['normal', 'resubmit_submitter', 'resubmit_approver'] as const;
export type NodeRole = (typeof NODE_ROLES)[number];

/** The eventName of an approval callback (spec 6.3), in the order a normal pass sends them first. */
export const CALLBACK_EVENT_NAMES = [
  'NODE_STARTED',
  'APPROVER_SUBMITTED',
  'NODE_COMPLETED',
  'NODE_TRANSFERRED',
  'SUBMITTER_RESUBMITTED',
  'TASK_APPROVED',
  'NODE_TIMEOUT',
] as const;
export type CallbackEventName = (typeof CALLBACK_EVENT_NAMES)[number];

/** The taskStatus of an approval callback (spec 6.3). */
export const CALLBACK_TASK_STATUSES = ['PROCESSING', 'APPROVED', 'TIMEOUT'] as const;
export type CallbackTaskStatus = (typeof CALLBACK_TASK_STATUSES)[number];

export function isApprovalDecision(value: unknown): value is ApprovalDecision {
  return APPROVAL_DECISIONS.includes(value as ApprovalDecision);
}

/** What a decision, resubmission or cancel answers: the task and its status afterwards. */
export interface ApprovalActionResult {
  taskId: string;
  status: ApprovalStatus;
}
