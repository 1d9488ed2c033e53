import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Core } from '../src/core/core.ts';
import type { DeliveryOutcome } from '../src/core/events/delivery.service.ts';
import type { Metrics } from '../src/observability/metrics.ts';
import type { Queues } from '../src/queues.ts';

/** A delivery job's id: one per delivery and attempt, so the relay and a finishing worker cannot queue an attempt twice. */
export function deliveryJobId(deliveryId: string, attempt: number): string {
  return `delivery-${deliveryId}-${attempt}`;
}

/** Puts deliveries on the delivery queue (payloads carry ids only). */
export async function queueDeliveries(queues: Queues, due: { id: string; attempts: number }[]): Promise<void> {
  if (due.length === 0) return;
  await queues.get('webhook-delivery').addBulk(
    due.map((d) => ({
      name: 'deliver',
      data: { deliveryId: d.id },
      opts: { jobId: deliveryJobId(d.id, d.attempts + 1), removeOnComplete: true, removeOnFail: true, attempts: 1 },
    })),
  );
}

/**
 * Webhook delivery: a thin adapter over `DeliveryService.attempt` (docs/events.md). When a
 * finished delivery promotes the next one of its line, that one is queued at once instead of
 * waiting for the relay. Logs each attempt without secrets or bodies.
 */
export function webhookDeliveryProcessor(deps: { core: Core; queues: Queues; metrics: Metrics; logger: Logger }) {
  return async (job: Job<{ deliveryId: string }>): Promise<DeliveryOutcome['outcome']> => {
    const result = await deps.core.deliveries.attempt(deps.core.operatorCtx(), job.data.deliveryId);
    deps.metrics.webhookAttempts.labels(result.outcome).inc();
    if (result.outcome === 'skipped') return result.outcome;
    deps.metrics.webhookAttemptDuration.labels(result.outcome).observe(result.durationMs / 1000);
    deps.logger.info({ deliveryId: job.data.deliveryId, attempt: result.attempt, status: result.statusCode, durationMs: result.durationMs, outcome: result.outcome }, 'webhook attempt');
    if (result.next) await queueDeliveries(deps.queues, [result.next]);
    return result.outcome;
  };
}
