import type { Job } from 'bullmq';
import type { Core } from '../src/core/core.ts';
import type { Queues } from '../src/queues.ts';

/** A timer's job id: one per task, node visit and round (no `:` in BullMQ ids), so a timer is never queued twice. */
export function timerJobId(taskId: string, nodeKey: string): string {
  return `timeout-${taskId}-${nodeKey.replace('#', '-r')}`;
}

/** Puts due approval timers on their queue as delayed jobs firing at the deadline. */
export async function queueTimers(queues: Queues, due: { taskId: string; nodeKey: string; delayMs: number }[]): Promise<void> {
  if (due.length === 0) return;
  await queues.get('approval-timeout').addBulk(
    due.map((t) => ({
      name: 'timeout',
      data: { taskId: t.taskId, nodeKey: t.nodeKey },
      opts: { jobId: timerJobId(t.taskId, t.nodeKey), delay: t.delayMs, removeOnComplete: true, removeOnFail: true },
    })),
  );
}

/** Approval node timeouts: a thin adapter; the engine re-reads the node in a transaction and does nothing if it moved on. */
export function approvalTimeoutProcessor(core: Core) {
  return async (job: Job<{ taskId: string; nodeKey: string }>): Promise<'fired' | 'skipped'> => core.approvals.engine.fireTimeout(core.operatorCtx(), job.data);
}
