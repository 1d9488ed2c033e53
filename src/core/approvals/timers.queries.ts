import type { UnitOfWork } from '../platform/ctx.ts';
import { bool, int, nullableText, oneOf, text } from '../platform/row-checks.ts';
import { idArray, intArray, nullableIntArray, preparedSql, queryOne, queryRows, textArray } from '../platform/sql.ts';
import type { Workflow } from './approval.schemas.ts';
import { ACTIVE_APPROVAL_STATUSES_SQL, NODE_ROLES, type NodeRole } from './approval-values.ts';
import { workflowColumn } from './templates.queries.ts';

/*
 * Statements on approval tasks' node timers (approval_tasks' timeout columns, and the decisions a
 * timeout moves): which are due, locking them, firing them. timeouts.ts says how a batch is fired.
 */

/**
 * How long a timer may be overdue before any job fires it with its own: BullMQ hands a job over
 * late when its worker is busy, and then an earlier job's batch takes its timer instead (and those
 * of the jobs behind it). Below this, each job fires its own timer and no job looks further.
 */
const CATCH_UP_AFTER_MS = 250;

/**
 * Whether a job has anything to fire: its own timer, or one overdue by CATCH_UP_AFTER_MS (a job
 * that BullMQ hands over late finds its timer fired by an earlier job's batch). Otherwise it does
 * nothing, after this one read and without a transaction.
 */
const ANY_DUE = preparedSql(
  'approvals.timerDue',
  `select exists (select 1 from approval_tasks where id = ?::uuid and timeout_at <= now() + interval '1 second' and status in ${ACTIVE_APPROVAL_STATUSES_SQL}) as own,
          exists (select 1 from approval_tasks where timeout_at <= now() - interval '${CATCH_UP_AFTER_MS} milliseconds' and status in ${ACTIVE_APPROVAL_STATUSES_SQL}) as overdue`,
);

/** A task whose timer may fire, locked. `overdue`: its deadline has passed (the job's own may run up to a second early). */
export interface DueTask {
  id: string;
  team_id: number;
  workflow: Workflow;
  node_index: number;
  node_role: NodeRole;
  round: number;
  overdue: boolean;
}

const DUE_COLUMNS = 'id, team_id, workflow, node_index, node_role, round, timeout_at <= now() as overdue';

/**
 * The job's own task and up to `?` others overdue, each locked unless another transaction holds it
 * (that one is firing it, or deciding first; the own task is then taken again with a wait).
 */
const LOCK_DUE = `select * from (
    select ${DUE_COLUMNS} from approval_tasks
     where id = ?::uuid and timeout_at <= now() + interval '1 second' and status in ${ACTIVE_APPROVAL_STATUSES_SQL} for update skip locked) own
  union all
  select * from (
    select ${DUE_COLUMNS} from approval_tasks
     where timeout_at <= now() and status in ${ACTIVE_APPROVAL_STATUSES_SQL} and id <> ?::uuid order by timeout_at limit ? for update skip locked) others`;

/** The job's own task alone, waiting for its lock. */
const LOCK_OWN = `select ${DUE_COLUMNS} from approval_tasks where id = ?::uuid and timeout_at <= now() + interval '1 second' and status in ${ACTIVE_APPROVAL_STATUSES_SQL} for update`;

/**
 * Fires the locked timers: with a transfer target the node's pending approvers are skipped and the
 * target becomes its pending approver; without one the node is `re_assigned`. Either way the
 * deadline is cleared. Returns the target's name and the node's approver count afterwards (its
 * decided approvers besides the target, plus the target), both read before the changes.
 */
const FIRE = `with input as (
    select * from unnest(?::uuid[], ?::text[], ?::int[], ?::int[]) as i(task_id, node_key, target, team_id)),
  skipped as (
    update approval_decisions d set state = 'skipped' from input i
     where i.target is not null and d.task_id = i.task_id and d.node_key = i.node_key and d.state = 'pending' and d.member_id <> i.target),
  assigned as (
    insert into approval_decisions (team_id, task_id, node_key, member_id)
    select team_id, task_id, node_key, target from input where target is not null
    on conflict (task_id, node_key, member_id) do update set state = 'pending', decided_at = null where approval_decisions.state = 'skipped'),
  tasks as (
    update approval_tasks t set node_status = case when i.target is null then 're_assigned' else 'processing' end, timeout_at = null, updated_at = now()
      from input i where t.id = i.task_id)
  select i.task_id::text as task_id, m.name as target_name,
         (select count(*) from approval_decisions d
           where d.task_id = i.task_id and d.node_key = i.node_key and d.state in ('approved', 'rejected') and d.member_id <> i.target)::int + 1 as approver_count
    from input i left join members m on m.id = i.target and m.team_id = i.team_id`;

function dueTaskOf(row: Record<string, unknown>): DueTask {
  return {
    id: text(row.id, 'id'),
    team_id: int(row.team_id, 'team_id'),
    workflow: workflowColumn(row.workflow, 'workflow'),
    node_index: int(row.node_index, 'node_index'),
    node_role: oneOf(NODE_ROLES, row.node_role, 'node_role'),
    round: int(row.round, 'round'),
    overdue: bool(row.overdue, 'overdue'),
  };
}

/** Whether the job's own timer is due (ANY_DUE), and whether any timer is overdue by CATCH_UP_AFTER_MS. */
export async function timersDue(op: UnitOfWork, ownTaskId: string): Promise<{ own: boolean; overdue: boolean }> {
  const row = await queryOne<Record<string, unknown>>(op, ANY_DUE, [ownTaskId]);
  return { own: row !== null && bool(row.own, 'own'), overdue: row !== null && bool(row.overdue, 'overdue') };
}

/** Locks the job's own task and up to `sweep` others overdue, skipping those another transaction holds (LOCK_DUE). */
export async function lockDueTasks(tx: UnitOfWork, ownTaskId: string, sweep: number): Promise<DueTask[]> {
  return (await queryRows<Record<string, unknown>>(tx, LOCK_DUE, [ownTaskId, ownTaskId, sweep])).map(dueTaskOf);
}

/** Locks the job's own task alone, waiting for its lock (LOCK_OWN). */
export async function lockOwnDueTask(tx: UnitOfWork, ownTaskId: string): Promise<DueTask[]> {
  return (await queryRows<Record<string, unknown>>(tx, LOCK_OWN, [ownTaskId])).map(dueTaskOf);
}

/** Fires locked timers (FIRE): each task with its node key and transfer target (null: none). By task id: the target's name and the node's approver count afterwards. */
export async function fireTimers(
  tx: UnitOfWork,
  timers: readonly { taskId: string; teamId: number; nodeKey: string; target: number | null }[],
): Promise<Map<string, { targetName: string | null; approverCount: number }>> {
  const rows = await queryRows<Record<string, unknown>>(tx, FIRE, [
    idArray(timers.map((t) => t.taskId)),
    textArray(timers.map((t) => t.nodeKey)),
    nullableIntArray(timers.map((t) => t.target)),
    intArray(timers.map((t) => t.teamId)),
  ]);
  return new Map(
    rows.map((row) => [
      text(row.task_id, 'task_id'),
      { targetName: nullableText(row.target_name, 'target_name'), approverCount: int(row.approver_count, 'approver_count') },
    ]),
  );
}

/**
 * Active tasks' timers due within `horizonMs` with no delayed job yet, and those overdue by 30 s
 * and not queued in the last 30 s; soonest first, at most `limit`. delayMs: how long until due (0 when past).
 */
export async function dueTimerRows(
  op: UnitOfWork,
  horizonMs: number,
  limit: number,
): Promise<{ id: string; workflow: Workflow; node_index: number; node_role: NodeRole; round: number; delayMs: number }[]> {
  const rows = await queryRows<Record<string, unknown>>(
    op,
    `select id, workflow, node_index, node_role, round, greatest(0, extract(epoch from timeout_at - now()) * 1000)::int as delay_ms
       from approval_tasks
      where timeout_at is not null and status in ${ACTIVE_APPROVAL_STATUSES_SQL}
        and ((timer_queued_at is null and timeout_at <= now() + ? * interval '1 millisecond')
             or (timeout_at < now() - interval '30 seconds' and timer_queued_at < now() - interval '30 seconds'))
      order by timeout_at limit ?`,
    [horizonMs, limit],
  );
  return rows.map((row) => ({
    id: text(row.id, 'id'),
    workflow: workflowColumn(row.workflow, 'workflow'),
    node_index: int(row.node_index, 'node_index'),
    node_role: oneOf(NODE_ROLES, row.node_role, 'node_role'),
    round: int(row.round, 'round'),
    delayMs: int(row.delay_ms, 'delay_ms'),
  }));
}

/** Notes that these tasks' timer jobs are on the queue. */
export async function markTimersQueued(op: UnitOfWork, taskIds: readonly string[]): Promise<void> {
  await queryRows(op, 'update approval_tasks set timer_queued_at = now() where id = any(?::uuid[])', [idArray(taskIds)]);
}
