import { defineEntity, p } from '@mikro-orm/core';
import { Member } from '../access/member.entity.ts';
import { Team } from '../access/team.entity.ts';
import { dbTimestamp, nullableTimestamp } from '../platform/timestamps.ts';

/**
 * An approval template (spec 2.7; docs/approvals.md): a named workflow of nodes. A task freezes a
 * copy of the workflow when it starts, so editing a template never changes a running task.
 */
export const ApprovalTemplate = defineEntity({
  name: 'ApprovalTemplate',
  tableName: 'approval_templates',
  indexes: [{ name: 'approval_templates_team_index', properties: ['team', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    team: () => p.manyToOne(Team),
    name: p.string().length(128),
    description: p.text().default(''),
    enabled: p.boolean().default(true),
    usageCount: p.integer().default(0),
    autoImportEnabled: p.boolean().default(false),
    targetFolder: p.text().default(''),
    workflow: p.json().columnType('jsonb'),
    createdBy: () => p.manyToOne(Member).nullable(),
    createdAt: dbTimestamp(),
    updatedAt: dbTimestamp(),
  },
});

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

/** An asset under review: the bytes' sha256 and storage key, by version (spec 6.3 latestAssets). */
export const ApprovalAsset = defineEntity({
  name: 'ApprovalAsset',
  tableName: 'approval_assets',
  uniques: [{ name: 'approval_assets_task_position_version_unique', properties: ['task', 'position', 'version'] }],
  // the permanent delete of the library asks whether any row still names a key (recycle-bin/stored-bytes.ts)
  indexes: [{ properties: ['storageKey'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    task: () => p.manyToOne(ApprovalTask).deleteRule('cascade'),
    position: p.integer(),
    version: p.integer(),
    name: p.text(),
    url: p.text().nullable(),
    sha256: p.string().length(64),
    storageKey: p.text(),
    byteSize: p.bigint(),
    mimeType: p.string().length(255).nullable(),
    extension: p.string().length(32).nullable(),
    createdAt: dbTimestamp(),
  },
});
