import { memberIdsAmong } from '../access/members.queries.ts';
import type { TeamScope } from '../platform/ctx.ts';
import { invalid } from '../platform/errors.ts';
import type { ApprovalTemplateInput, Workflow } from './approval.schemas.ts';

const toId = (value: number | string): number => Number(value);

/**
 * Normalises a workflow file's nodes (ids as numbers, node ids `node-1`, `node-2`, ...) and checks
 * that every approver, copy recipient and transfer target is a member of the team (spec 2.7,
 * CONTRACT.md: "approvers ... must be members of that team"); the first stranger is named.
 */
export async function checkedWorkflow(scope: TeamScope, input: ApprovalTemplateInput['workflow']): Promise<Workflow> {
  const nodes = input.nodes.map((node, i) => ({
    nodeId: `node-${i + 1}`,
    name: node.name,
    signMode: node.signMode,
    approvers: [...new Set(node.approvers.map(toId))],
    copyTo: [...new Set((node.copyTo ?? []).map(toId))],
    timeout: node.timeout ? { hours: node.timeout.hours, transferTo: node.timeout.transferTo == null ? null : toId(node.timeout.transferTo) } : null,
  }));
  const named = new Map<number, string>();
  nodes.forEach((node, i) => {
    for (const id of node.approvers) named.set(id, `workflow.nodes[${i}].approvers`);
    for (const id of node.copyTo) named.set(id, `workflow.nodes[${i}].copyTo`);
    if (node.timeout?.transferTo) named.set(node.timeout.transferTo, `workflow.nodes[${i}].timeout.transferTo`);
  });
  await requireMembers(scope, named);
  return { nodes };
}

/** Refuses the first id that is not a member of the team, naming the field it came from. */
export async function requireMembers(scope: TeamScope, named: Map<number, string>): Promise<void> {
  if (named.size === 0) return;
  const found = await memberIdsAmong(scope, [...named.keys()]);
  for (const [id, field] of named) {
    if (!found.has(id)) throw invalid(field, `${id} is not a member of the team`, 'not_a_team_member');
  }
}
