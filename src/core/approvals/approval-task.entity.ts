import { defineEntity, p } from '@mikro-orm/core';
import { Member } from '../access/member.entity.ts';
import { Team } from '../access/team.entity.ts';
import { dbTimestamp, nullableTimestamp } from '../platform/timestamps.ts';
import { ApprovalTemplate } from './approval-template.entity.ts';

/**
 * An approval task (spec 2.7, 3.4): its frozen workflow, where it stands (node, role, round),
 * and when the current node times out. `timerQueuedAt` notes that the timeout's delayed job was
 * queued, so the relay queues each timer once.
 */
export const ApprovalTask = defineEntity({
  name: 'ApprovalTask',
  tableName: 'approval_tasks',
  indexes: [
    { name: 'approval_tasks_team_index', properties: ['team', 'createdAt'] },
    {
      name: 'approval_tasks_timer_due_index',
      expression: `create index "approval_tasks_timer_due_index" on "approval_tasks" ("timeout_at") where "timeout_at" is not null and "timer_queued_at" is null`,
    },
    {
      // every armed timer: the overdue ones a timer's job fires with its own, those the relay queues again
      name: 'approval_tasks_timer_armed_index',
      expression: `create index "approval_tasks_timer_armed_index" on "approval_tasks" ("timeout_at") where "timeout_at" is not null`,
    },
  ],
  properties: {
    id: p.uuid().primary(),
    team: () => p.manyToOne(Team),
    template: () => p.manyToOne(ApprovalTemplate),
    workflow: p.json().columnType('jsonb'),
    status: p.string().length(16),
    createdBy: () => p.manyToOne(Member),
    reason: p.text().nullable(),
    sourceContext: p.json().columnType('jsonb').nullable(),
    /** Index of the workflow node the task is at (for resubmit roles: the node that rejected). */
    nodeIndex: p.integer(),
    /** `normal`, `resubmit_submitter` or `resubmit_approver` (spec 3.4). */
    nodeRole: p.string().length(24),
    /** `processing`, `timeout_transferred`, `re_assigned` while a node waits. */
    nodeStatus: p.string().length(24),
    /** 1, plus one for every rejection. */
    round: p.integer().default(1),
    nodeStartedAt: dbTimestamp(),
    timeoutAt: nullableTimestamp(),
    timerQueuedAt: nullableTimestamp(),
    operator: () => p.manyToOne(Member).nullable(),
    createdAt: dbTimestamp(),
    updatedAt: dbTimestamp(),
    finishedAt: nullableTimestamp(),
  },
});
