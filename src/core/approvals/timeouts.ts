import { recordEvents, type ScopedEvent } from '../outbox/outbox.ts';
import type { UnitOfWork } from '../platform/ctx.ts';
import { isUuid } from '../platform/ids.ts';
import { inTransaction } from '../platform/tx.ts';
import { callbackEvent, nodeIdOf, nodeKeyOf, nodeObject, visitOf } from './callbacks.ts';
import { type DueTask, fireTimers, lockDueTasks, lockOwnDueTask, timersDue } from './timers.queries.ts';

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
 * A timer's job: fires its own timer (when the task is still at that node visit and the deadline
 * has come, give or take the second BullMQ may run early) and others already overdue. Returns
 * whether its own fired.
 */
export async function fireTimeouts(op: UnitOfWork, own: { taskId: string; nodeKey: string }): Promise<'fired' | 'skipped'> {
  if (!isUuid(own.taskId)) return 'skipped';
  const due = await timersDue(op, own.taskId);
  if (!due.own && !due.overdue) return 'skipped';
  const first = await fireLocked(op, own, (tx) => lockDueTasks(tx, own.taskId, SWEEP));
  if (first !== 'busy' || !due.own) return first === 'fired' ? 'fired' : 'skipped';
  // another transaction held the own task: a batch firing it, or a decision; wait for it and look again
  return (await fireLocked(op, own, (tx) => lockOwnDueTask(tx, own.taskId))) === 'fired' ? 'fired' : 'skipped';
}

/** Locks with `lock` and fires what is due; 'busy' when the own task was not among the locked rows. */
async function fireLocked(
  op: UnitOfWork,
  own: { taskId: string; nodeKey: string },
  lock: (tx: UnitOfWork) => Promise<DueTask[]>,
): Promise<'fired' | 'skipped' | 'busy'> {
  return inTransaction(op, async (tx) => {
    const locked = await lock(tx);
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
  const byTask = await fireTimers(
    tx,
    tasks.map((task, i) => ({ taskId: task.id, teamId: task.team_id, nodeKey: nodeKeyOf(visits[i]!), target: targets[i]! })),
  );
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
    const transferTo = { id: String(target), name: row.targetName };
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
        node: { ...nodeObject(visit, 'processing', row.approverCount), timeoutHours: hours },
        timeout: { transferTo },
      }),
    });
  }
  await recordEvents(tx, events);
}
