import { recordEvents, type ScopedEvent } from '../events/outbox.ts';
import type { UnitOfWork } from '../platform/ctx.ts';
import { intArray, preparedSql, queryOne, queryRows, textArray } from '../platform/sql.ts';
import { inTransaction } from '../platform/tx.ts';
import type { Workflow } from './approval.schemas.ts';
import { callbackEvent, nodeIdOf, nodeKeyOf, nodeObject, visitOf, type NodeVisit } from './callbacks.ts';
import { ACTIVE_APPROVAL_STATUSES_SQL } from './approval-values.ts';
import { isUuid } from '../platform/ids.ts';

/*
 * Node timeouts (docs/approvals.md "Timers"), fired in batches. A timer's job fires its own timer
 * and, in the same transaction, up to SWEEP others whose deadline has passed: a batch costs the
 * same five statements as a single timer (begin, lock, update, callbacks, commit), so a worker that
 * falls behind catches up with fewer round trips per timer, and a timer whose job BullMQ hands
 * over late is fired by whichever job runs first. Every task is locked and re-read in the
 * transaction: a task whose node moved on (a decision landed first) is left alone, and a timer
 * fired by another job's batch has no deadline left, so its own job then does nothing.
 */

/** Timers one job fires besides its own, at most: enough to catch up, few enough to hold the locks briefly. */
const SWEEP = 50;

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
interface DueTask {
  id: string;
  team_id: number;
  workflow: Workflow;
  node_index: number;
  node_role: NodeVisit['role'];
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

/**
 * A timer's job: fires its own timer (when the task is still at that node visit and the deadline
 * has come, give or take the second BullMQ may run early) and others already overdue. Returns
 * whether its own fired.
 */
export async function fireTimeouts(op: UnitOfWork, own: { taskId: string; nodeKey: string }): Promise<'fired' | 'skipped'> {
  if (!isUuid(own.taskId)) return 'skipped';
  const due = await queryOne<{ own: boolean; overdue: boolean }>(op, ANY_DUE, [own.taskId]);
  if (!due?.own && !due?.overdue) return 'skipped';
  const first = await fireLocked(op, own, LOCK_DUE, [own.taskId, own.taskId, SWEEP]);
  if (first !== 'busy' || !due.own) return first === 'fired' ? 'fired' : 'skipped';
  // another transaction held the own task: a batch firing it, or a decision; wait for it and look again
  return (await fireLocked(op, own, LOCK_OWN, [own.taskId])) === 'fired' ? 'fired' : 'skipped';
}

/** Locks with `lockSql` and fires what is due; 'busy' when the own task was not among the locked rows. */
async function fireLocked(op: UnitOfWork, own: { taskId: string; nodeKey: string }, lockSql: string, params: unknown[]): Promise<'fired' | 'skipped' | 'busy'> {
  return inTransaction(op, async (tx) => {
    const locked = await queryRows<DueTask>(tx, lockSql, params);
    const ownRow = locked.find((row) => row.id === own.taskId);
    // the own task fires for its node visit; others (and the own task at a later visit) only when overdue
    const fire = locked.filter((row) => row.overdue || (row === ownRow && nodeKeyOf(visitOf(row)) === own.nodeKey));
    await fireTasks(tx, fire);
    if (!ownRow) return 'busy';
    return fire.includes(ownRow) ? 'fired' : 'skipped';
  });
}

/** Fires locked, due timers: one statement for the tasks and decisions, one for all their callbacks (NODE_TIMEOUT, then NODE_TRANSFERRED with a target). */
async function fireTasks(tx: UnitOfWork, tasks: DueTask[]): Promise<void> {
  if (tasks.length === 0) return;
  const visits = tasks.map((task) => visitOf(task));
  const targets = visits.map((visit) => visit.node.timeout?.transferTo ?? null);
  const fired = await queryRows<{ task_id: string; target_name: string | null; approver_count: number }>(tx, FIRE, [
    `{${tasks.map((t) => t.id).join(',')}}`,
    textArray(visits.map((visit) => nodeKeyOf(visit))),
    `{${targets.map((target) => (target === null ? 'NULL' : Math.trunc(target))).join(',')}}`,
    intArray(tasks.map((t) => t.team_id)),
  ]);
  const byTask = new Map(fired.map((row) => [row.task_id, row]));
  const events: ScopedEvent[] = [];
  for (const [i, task] of tasks.entries()) {
    const visit = visits[i]!;
    const target = targets[i]!;
    const row = byTask.get(task.id)!;
    const scope = { teamId: task.team_id, actor: { kind: 'system' as const, teamId: task.team_id, job: 'approval-timeout' } };
    const hours = visit.node.timeout?.hours ?? null;
    if (target === null) {
      events.push({
        ...scope,
        ...callbackEvent(task.team_id, task, 'NODE_TIMEOUT', 'TIMEOUT', {
          node: { nodeId: nodeIdOf(visit), nodeStatus: 're_assigned', timeoutHours: hours },
          timeout: { transferTo: null },
        }),
      });
      continue;
    }
    const transferTo = { id: String(target), name: row.target_name };
    events.push({
      ...scope,
      ...callbackEvent(task.team_id, task, 'NODE_TIMEOUT', 'TIMEOUT', {
        node: { nodeId: nodeIdOf(visit), nodeStatus: 'timeout_transferred', timeoutHours: hours },
        timeout: { transferTo },
      }),
    });
    events.push({
      ...scope,
      ...callbackEvent(task.team_id, task, 'NODE_TRANSFERRED', 'PROCESSING', {
        transferReason: 'TIMEOUT_TRANSFER',
        node: { ...nodeObject(visit, 'processing', row.approver_count), timeoutHours: hours },
        timeout: { transferTo },
      }),
    });
  }
  await recordEvents(tx, events);
}
