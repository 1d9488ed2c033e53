import type { Logger } from 'pino';
import type { Core } from '../src/core/core.ts';
import type { Queues } from '../src/queues.ts';
import { queueTimers } from './approval-timeout.worker.ts';
import { queueDeliveries } from './webhook-delivery.worker.ts';

/**
 * Deliveries one relay step takes at most: a backlog for a few endpoints then fills jobs of 50
 * deliveries each (workers/webhook-delivery.worker.ts), not 20.
 */
const BATCH = 2500;
/** Approval timers one relay step takes at most. */
const TIMER_BATCH = 1000;
/** Timers due within this are queued as delayed jobs; later ones wait in PostgreSQL. */
const TIMER_HORIZON_MS = 60_000;

interface RelayDeps {
  core: Core;
  queues: Queues;
  logger: Logger;
  intervalMs: number;
  /**
   * Delivery jobs waiting in the queue from which a step takes no more deliveries (the delivery
   * concurrency): the workers have work for a while, and the rest waits in PostgreSQL.
   */
  maxWaitingJobs: number;
}

/**
 * The outbox relay (DESIGN.md Events): moves committed, due deliveries from PostgreSQL onto the
 * BullMQ delivery queue, every `intervalMs` (immediately again while it finds full batches). Every
 * worker process runs one; `FOR UPDATE SKIP LOCKED` and deterministic job ids keep them from
 * doubling work, and PostgreSQL stays the source of truth: what Redis loses is taken again.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  private readonly deps: RelayDeps;

  constructor(deps: RelayDeps) {
    this.deps = deps;
  }

  start(): void {
    this.schedule(0);
  }

  /**
   * One step: take due deliveries and approval timers and queue them; returns how many deliveries
   * were queued. Deliveries are taken only while the queue is short: a delivery taken sits in the
   * index of due deliveries, marked queued, until a worker claims it, and every step walks past
   * those. Taking a whole backlog at once made each step walk thousands of them
   * (bench/RESULTS-webhooks.md) and put all of it in Redis.
   */
  async step(): Promise<number> {
    const op = this.deps.core.operatorCtx();
    // every timer due within the horizon is queued before deliveries are taken: a worker that
    // starts (a restart, a deploy) queues the whole coming minute at once, soonest first
    while ((await this.stepTimers()) === TIMER_BATCH && !this.stopped);
    if ((await this.deps.queues.get('webhook-delivery').getWaitingCount()) >= this.deps.maxWaitingJobs) return 0;
    const due = await this.deps.core.events.deliveries.takeDue(op, BATCH);
    try {
      await queueDeliveries(this.deps.queues, due);
    } catch (e) {
      await this.deps.core.events.deliveries.untake(
        op,
        due.map((d) => d.id),
      );
      throw e;
    }
    return due.length;
  }

  /** Approval timers due soon become BullMQ delayed jobs (DESIGN.md: timers are delayed jobs keyed by task, node and round). */
  private async stepTimers(): Promise<number> {
    const op = this.deps.core.operatorCtx();
    const due = await this.deps.core.approvals.tasks.dueTimers(op, TIMER_HORIZON_MS, TIMER_BATCH);
    await queueTimers(this.deps.queues, due);
    await this.deps.core.approvals.tasks.markTimersQueued(
      op,
      due.map((t) => t.taskId),
    );
    return due.length;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.step().then(
        (count) => this.schedule(count === BATCH ? 0 : this.deps.intervalMs),
        (err: unknown) => {
          this.deps.logger.warn({ err }, 'outbox relay step failed; retrying');
          this.schedule(Math.max(this.deps.intervalMs, 1000));
        },
      );
    }, delayMs);
  }

  /** Stops taking deliveries; an unfinished step completes first. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
