import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import type { Core } from '../src/core/core.ts';
import type { Metrics } from '../src/observability/metrics.ts';
import type { Queues } from '../src/queues.ts';

/** Deliveries one job carries at most: a batch of one endpoint's line heads (50: bench/RESULTS-webhooks.md). */
const BATCH = 50;

/** A due delivery as the relay or a finished line hands it over. */
export interface DueDelivery {
  id: string;
  attempts: number;
  endpointId?: number;
}

/**
 * Puts deliveries on the delivery queue, grouped by endpoint in batches (payloads carry ids only).
 * Job ids name the batch's deliveries and attempts, so the relay and a finishing worker cannot
 * queue the same attempt twice while a job for it waits.
 */
export async function queueDeliveries(queues: Queues, due: DueDelivery[]): Promise<void> {
  if (due.length === 0) return;
  const byEndpoint = new Map<number | undefined, DueDelivery[]>();
  for (const d of due) byEndpoint.set(d.endpointId, [...(byEndpoint.get(d.endpointId) ?? []), d]);
  const jobs = [];
  for (const group of byEndpoint.values()) {
    for (let i = 0; i < group.length; i += BATCH) {
      const batch = group.slice(i, i + BATCH);
      jobs.push({
        name: 'deliver',
        data: { deliveryIds: batch.map((d) => d.id) },
        opts: { jobId: `delivery-${batch.map((d) => `${d.id}_${d.attempts + 1}`).join('-')}`, removeOnComplete: true, removeOnFail: true, attempts: 1 },
      });
    }
  }
  await queues.get('webhook-delivery').addBulk(jobs);
}

/**
 * Webhook delivery: a thin adapter over `DeliveryService.attemptMany` (docs/events.md). When a
 * finished delivery promotes the next one of its line, that one is queued at once instead of
 * waiting for the relay. Logs each attempt without secrets or bodies, and as an error an attempt
 * the database would not let it finish (after the service's retries): the job does not fail for
 * it, as sending the batch again would repeat its other deliveries.
 */
export function webhookDeliveryProcessor(deps: { core: Core; queues: Queues; metrics: Metrics; logger: Logger }) {
  return async (job: Job<{ deliveryIds: string[] }>): Promise<number> => {
    const outcomes = await deps.core.events.deliveries.attemptMany(deps.core.operatorCtx(), job.data.deliveryIds);
    const next: DueDelivery[] = [];
    for (const result of outcomes) {
      deps.metrics.webhookAttempts.labels(result.outcome).inc();
      if (result.outcome === 'skipped') continue;
      if (result.outcome === 'finish_failed') {
        const consequence =
          result.stage === 'record' ? 'not recorded; sent again when its lease runs out' : 'recorded; the next delivery of its line was not made its head';
        deps.logger.error(
          { deliveryId: result.deliveryId, attempt: result.attempt, status: result.statusCode, err: result.error },
          `webhook attempt ${consequence}`,
        );
        continue;
      }
      deps.metrics.webhookAttemptDuration.labels(result.outcome).observe(result.durationMs / 1000);
      deps.logger.info(
        { deliveryId: result.deliveryId, attempt: result.attempt, status: result.statusCode, durationMs: result.durationMs, outcome: result.outcome },
        'webhook attempt',
      );
      if (result.next) next.push(result.next);
    }
    await queueDeliveries(deps.queues, next);
    return outcomes.length;
  };
}
