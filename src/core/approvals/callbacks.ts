import { memberNamesAmong } from '../access/members.queries.ts';
import { APPROVAL_EVENT_TYPE } from '../outbox/event-types.ts';
import { type EventToRecord, recordEvent } from '../outbox/outbox.ts';
import type { ActingScope, TeamScope } from '../platform/ctx.ts';
import type { WorkflowNode } from './approval.schemas.ts';
import type { CallbackEventName, CallbackTaskStatus, NodeRole } from './approval-values.ts';

/** The node a task is at, as the callbacks name it (spec 6.3 node object). */
export interface NodeVisit {
  index: number;
  role: NodeRole;
  round: number;
  node: WorkflowNode;
}

/** The node visit a task is at. */
export function visitOf(task: { workflow: { nodes: WorkflowNode[] }; node_index: number; node_role: NodeVisit['role']; round: number }): NodeVisit {
  return { index: task.node_index, role: task.node_role, round: task.round, node: task.workflow.nodes[task.node_index]! };
}

/** A node visit's id: the workflow node's id, or a resubmit step of a round (`node-2-resubmit-2`, `node-2-rereview-2`). */
export function nodeIdOf(visit: NodeVisit): string {
  if (visit.role === 'resubmit_submitter') return `${visit.node.nodeId}-resubmit-${visit.round}`;
  if (visit.role === 'resubmit_approver') return `${visit.node.nodeId}-rereview-${visit.round}`;
  return visit.node.nodeId;
}

/** Decisions of one visit are keyed `<nodeId>#<round>`, so a node visited again in a later round starts afresh. */
export function nodeKeyOf(visit: NodeVisit): string {
  return `${nodeIdOf(visit)}#${visit.round}`;
}

/** The node object's common fields. */
export function nodeObject(visit: NodeVisit, nodeStatus: string, approverCount: number): Record<string, unknown> {
  return { nodeId: nodeIdOf(visit), nodeOrder: visit.index + 1, nodeRole: visit.role, nodeStatus, signMode: visit.node.signMode, approverCount };
}

/** Member names by id, for the approver, submitter, operator and transferTo objects. */
export async function memberNames(scope: TeamScope, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  return memberNamesAmong(scope, ids);
}

/**
 * One approval callback (spec 6.3) as an outbox event: every payload has eventName, orgId, taskId,
 * taskStatus and, beyond the spec, the task's `round`. The task is the ordering key, so one task's
 * callbacks arrive in order.
 */
export function callbackEvent(
  teamId: number,
  task: { id: string; round: number },
  eventName: CallbackEventName,
  taskStatus: CallbackTaskStatus,
  fields: Record<string, unknown>,
): EventToRecord {
  return {
    eventType: APPROVAL_EVENT_TYPE,
    audience: { kind: 'approval' },
    orderingKey: `task:${task.id}`,
    live: { stream: 'approval', subjectId: task.id },
    fields: { payload: { eventName, orgId: teamId, taskId: task.id, taskStatus, round: task.round, ...fields } },
  };
}

/** Writes one approval callback (callbackEvent) to the outbox in the caller's transaction. */
export async function recordCallback(
  scope: ActingScope,
  task: { id: string; round: number },
  eventName: CallbackEventName,
  taskStatus: CallbackTaskStatus,
  fields: Record<string, unknown>,
): Promise<void> {
  await recordEvent(scope, callbackEvent(scope.teamId, task, eventName, taskStatus, fields));
}
