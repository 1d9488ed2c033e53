import { defineEntity, p } from '@mikro-orm/core';
import { Member } from '../access/member.entity.ts';
import { Team } from '../access/team.entity.ts';
import { nullableTimestamp } from '../platform/timestamps.ts';
import { ApprovalTask } from './approval-task.entity.ts';

/** One approver of the node a task is at, and their decision (spec 6.3 approver objects). */
export const ApprovalDecision = defineEntity({
  name: 'ApprovalDecision',
  tableName: 'approval_decisions',
  uniques: [{ name: 'approval_decisions_node_member_unique', properties: ['task', 'nodeKey', 'member'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    task: () => p.manyToOne(ApprovalTask).deleteRule('cascade'),
    /** The node visit: `<nodeId>#<round>`. */
    nodeKey: p.string().length(128),
    member: () => p.manyToOne(Member),
    /** `pending`, `approved`, `rejected`, or `skipped` (an `or` node decided by someone else). */
    state: p.string().length(16).default('pending'),
    comment: p.text().nullable(),
    decidedAt: nullableTimestamp(),
  },
});
