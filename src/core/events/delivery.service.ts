import { DeadlockException } from '@mikro-orm/core';
import type { UnitOfWork } from '../platform/ctx.ts';
import { inTransaction } from '../platform/tx.ts';
import {
  type ClaimedDelivery,
  claimDeliveries,
  finishDelivery,
  lockLine,
  type NextInLine,
  oldestDueWaitSeconds,
  promoteNextInLine,
  releaseExpiredLeases,
  rescheduleDelivery,
  succeedDeliveries,
  takeDueDeliveries,
  untakeDeliveries,
} from './deliveries.queries.ts';
import { retryAfterMs, retryDelayMs } from './retry-schedule.ts';
import { signatureHeaders } from './signing.ts';
import { disableEndpoint, noteEndpointFailure } from './subscriptions.queries.ts';

/** What delivery needs of the outbound guard (src/core/platform/outbound): one guarded POST. */
export interface WebhookPoster {
  post(
    url: string,
    body: string,
    options: { headers: Record<string, string>; timeoutMs: number; maxResponseBytes?: number },
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer; durationMs: number }>;
}

export interface DeliverySettings {
  /** Waits before each retry (retry-schedule.ts); its length is the number of retries. */
  retryScheduleMs: readonly number[];
  /** One attempt's bound, connect to last byte read (15 s). */
  attemptTimeoutMs: number;
}

/** A claim outlives its attempt by this much; past it, a worker that died mid-attempt gives the delivery back. */
const LEASE_MARGIN_MS = 5_000;
/** An endpoint whose deliveries have all failed this long is disabled. */
const FAILING_DAYS_BEFORE_DISABLE = 5;
/** How much of a receiver's answer is kept with an attempt. */
const RESPONSE_EXCERPT_BYTES = 1024;

/** What one attempt came to, as recorded. */
export interface AttemptResult {
  statusCode: number | null;
  error: string | null;
  excerpt: string | null;
  durationMs: number;
  retryAfterMs: number | null;
}

export type DeliveryOutcome =
  | { outcome: 'skipped' }
  | {
      outcome: 'succeeded' | 'failed' | 'retry_scheduled' | 'endpoint_disabled';
      deliveryId: string;
      attempt: number;
      statusCode: number | null;
      durationMs: number;
      next: { id: string; attempts: number } | null;
    }
  /**
   * The attempt was made, but the database refused its finish even after retries (unreachable,
   * say). `record`: nothing of it was recorded, so the lease runs out and the event is sent again.
   * `promote`: it succeeded and is recorded, but the next delivery of its line could not be made
   * the head. The caller logs it; the batch's other deliveries are not affected.
   */
  | {
      outcome: 'finish_failed';
      stage: 'record' | 'promote';
      deliveryId: string;
      attempt: number;
      statusCode: number | null;
      durationMs: number;
      error: unknown;
    };

function finishFailed(stage: 'record' | 'promote', claimed: ClaimedDelivery, result: AttemptResult, error: unknown): DeliveryOutcome {
  return {
    outcome: 'finish_failed',
    stage,
    deliveryId: claimed.id,
    attempt: claimed.attempts,
    statusCode: result.statusCode,
    durationMs: result.durationMs,
    error,
  };
}

/**
 * The body a receiver gets: the stored event with its line's `sequence` added as the last member.
 * The stored text is JSON.stringify output (outbox/outbox.ts, webhook-admin.service.ts) and has no
 * `sequence` of its own, so splicing it in before the closing brace gives the very bytes that
 * parsing and serialising `{...body, sequence}` gave, without either (they were a tenth of the
 * worker's time).
 */
export function withSequence(stored: string, sequence: string | number): string {
  const n = Number(sequence);
  let end = stored.length - 1;
  while (end > 0 && isJsonSpace(stored.charCodeAt(end))) end--;
  // anything but an object's text (never stored) takes the long way, as before
  if (stored.charCodeAt(end) !== 0x7d) return JSON.stringify({ ...(JSON.parse(stored) as object), sequence: n });
  let before = end - 1;
  while (before > 0 && isJsonSpace(stored.charCodeAt(before))) before--;
  // `{` just before the final `}` can only open the top-level object: it is empty
  return `${stored.slice(0, end)}${stored.charCodeAt(before) === 0x7b ? '' : ','}"sequence":${n}}`;
}

function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

function isSuccess(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Runs a unit that records attempts. The first try is the unit as is: the batch's one statement
 * outside a transaction stays a prepared statement (its planning cost as much as running it). A
 * deadlock or serialization failure is then retried from a fresh transaction by tx.ts rather than
 * losing the attempts (a lost finish leaves the lease to run out, and the event is sent twice).
 */
async function withRetries<T>(op: UnitOfWork, work: (tx: UnitOfWork) => Promise<T>): Promise<T> {
  try {
    return await work(op);
  } catch (e) {
    // tx.ts: SQLSTATE 40001 and 40P01 both surface as DeadlockException
    if (!(e instanceof DeadlockException)) throw e;
    return inTransaction(op, work);
  }
}

/**
 * Webhook delivery (docs/events.md): claims the head of a line, POSTs the event through the
 * outbound guard with Standard Webhooks signatures, records the attempt, then either finishes the
 * delivery (and promotes the next in its line) or schedules its retry. At least once: a worker
 * that dies mid-attempt leaves a lease that expires, and the event is sent again with its eventId.
 */
export class DeliveryService {
  private readonly deps: { poster: WebhookPoster; settings: DeliverySettings };

  constructor(deps: { poster: WebhookPoster; settings: DeliverySettings }) {
    this.deps = deps;
  }

  /**
   * Attempts of a batch of deliveries (the relay groups them by endpoint): claimed in one
   * statement, sent at once, and the successes finished in one statement; any other result, and a
   * success whose line a writer held, goes the way of a single attempt in a transaction of its own.
   * Two statements per batch instead of two per delivery: the database round trips, not the HTTP
   * requests, bounded delivery throughput (bench/RESULTS.md). Each delivery's outcome stands on its
   * own: one that could not be recorded does not take the batch's others with it.
   */
  async attemptMany(op: UnitOfWork, deliveryIds: string[]): Promise<DeliveryOutcome[]> {
    const claimed = await claimDeliveries(op, deliveryIds, this.deps.settings.attemptTimeoutMs + LEASE_MARGIN_MS);
    if (claimed.length === 0) return [];
    const results = await Promise.all(claimed.map((c) => this.send(c)));
    const outcomes: DeliveryOutcome[] = [];
    const single: number[] = [];
    const succeeded = claimed.flatMap((_c, i) => (isSuccess(results[i]!.statusCode) ? [i] : []));
    if (succeeded.length > 0) {
      try {
        const batch = await this.succeedMany(
          op,
          succeeded.map((i) => claimed[i]!),
          succeeded.map((i) => results[i]!),
        );
        outcomes.push(...batch.outcomes);
        single.push(...batch.busy.map((j) => succeeded[j]!));
      } catch (error) {
        outcomes.push(...succeeded.map((i) => finishFailed('record', claimed[i]!, results[i]!, error)));
      }
    }
    single.push(...claimed.flatMap((_c, i) => (isSuccess(results[i]!.statusCode) ? [] : [i])));
    for (const i of single) {
      try {
        outcomes.push(await inTransaction(op, (tx) => this.record(tx, claimed[i]!, results[i]!)));
      } catch (error) {
        outcomes.push(finishFailed('record', claimed[i]!, results[i]!, error));
      }
    }
    return outcomes;
  }

  /** Finishes successes in one statement (deliveries.queries.ts SUCCEED_MANY); `busy` indexes those whose line a writer held, to finish one by one. */
  private async succeedMany(op: UnitOfWork, claimed: ClaimedDelivery[], results: AttemptResult[]): Promise<{ outcomes: DeliveryOutcome[]; busy: number[] }> {
    const rows = await withRetries(op, (tx) => succeedDeliveries(tx, claimed, results));
    const outcomes: DeliveryOutcome[] = [];
    const busy: number[] = [];
    const indexOf = new Map(claimed.map((c, i) => [c.id, i]));
    for (const row of rows) {
      const index = indexOf.get(row.id)!;
      const c = claimed[index]!;
      const r = results[index]!;
      if (!row.free) {
        busy.push(index);
        continue;
      }
      // a lease that ran out gave the delivery back meanwhile: the attempt is recorded, the rest is the new claimant's
      if (!row.finished) {
        outcomes.push({ outcome: 'skipped' });
        continue;
      }
      let next = row.next;
      if (next === null && row.unfinished! > 0) {
        // a writer that committed after the statement's snapshot but before its lock is counted, not seen
        try {
          next = await withRetries(op, (tx) => this.promoteNext(tx, c));
        } catch (error) {
          outcomes.push(finishFailed('promote', c, r, error));
          continue;
        }
      }
      outcomes.push({ outcome: 'succeeded', deliveryId: c.id, attempt: c.attempts, statusCode: r.statusCode, durationMs: r.durationMs, next });
    }
    return { outcomes, busy };
  }

  private async send(claimed: ClaimedDelivery): Promise<AttemptResult> {
    const body = withSequence(claimed.body, claimed.sequence);
    const secrets = claimed.previous_secret ? [claimed.secret, claimed.previous_secret] : [claimed.secret];
    const headers = { 'content-type': 'application/json', 'user-agent': 'Shelf-Webhooks/1.0', ...signatureHeaders(secrets, claimed.event_id, body) };
    const started = Date.now();
    try {
      const response = await this.deps.poster.post(claimed.url, body, { headers, timeoutMs: this.deps.settings.attemptTimeoutMs, maxResponseBytes: 64 * 1024 });
      return {
        statusCode: response.status,
        error: isSuccess(response.status) ? null : `HTTP ${response.status}`,
        // PostgreSQL text holds no NUL character
        excerpt: response.body.subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8').replaceAll('\u0000', ''),
        durationMs: response.durationMs,
        retryAfterMs: response.status === 429 || response.status === 503 ? retryAfterMs(headerValue(response.headers['retry-after'])) : null,
      };
    } catch (e) {
      const kind = (e as { kind?: string; reason?: string }).kind ?? (e as { reason?: string }).reason ?? 'error';
      return { statusCode: null, error: `${kind}: ${(e as Error).message}`.slice(0, 500), excerpt: null, durationMs: Date.now() - started, retryAfterMs: null };
    }
  }

  /** Records one attempt and moves its delivery on, in the transaction attemptMany opens for it (finish says why). */
  private async record(tx: UnitOfWork, claimed: ClaimedDelivery, result: AttemptResult): Promise<DeliveryOutcome> {
    const base = { deliveryId: claimed.id, attempt: claimed.attempts, statusCode: result.statusCode, durationMs: result.durationMs };
    if (isSuccess(result.statusCode)) {
      const finished = await this.finish(tx, claimed, 'succeeded', result);
      return finished ? { outcome: 'succeeded', ...base, next: finished.next } : { outcome: 'skipped' };
    }
    if (result.statusCode === 410) {
      const finished = await this.finish(tx, claimed, 'failed', result);
      if (!finished) return { outcome: 'skipped' };
      await disableEndpoint(tx, claimed.endpoint_id, 'The receiver answered 410 Gone');
      return { outcome: 'endpoint_disabled', ...base, next: finished.next };
    }
    const delay = retryDelayMs(this.deps.settings.retryScheduleMs, claimed.attempts);
    if (delay === null) {
      const finished = await this.finish(tx, claimed, 'failed', result);
      if (!finished) return { outcome: 'skipped' };
      const disabled = await this.noteFailure(tx, claimed.endpoint_id);
      return { outcome: disabled ? 'endpoint_disabled' : 'failed', ...base, next: finished.next };
    }
    const wait = result.retryAfterMs === null ? delay : Math.min(Math.max(result.retryAfterMs, 1000), 86_400_000);
    // a lease that ran out gave the delivery back meanwhile: the attempt is recorded, the rest is the new claimant's
    if (!(await rescheduleDelivery(tx, claimed, result, wait))) return { outcome: 'skipped' };
    const disabled = await this.noteFailure(tx, claimed.endpoint_id);
    return { outcome: disabled ? 'endpoint_disabled' : 'retry_scheduled', ...base, next: null };
  }

  /**
   * Finishes the claimed delivery in one statement: records the attempt, sets the final status,
   * clears the endpoint's run of failures on success, counts the line down and makes its next
   * delivery the head. Null when the lease ran out and the delivery was given back meanwhile (then
   * only the attempt is recorded).
   *
   * The line row's lock orders this with writers adding to the line (outbox/outbox.ts). It is the first
   * lock of the transaction (`tx`, opened by attemptMany) and the only line it takes, so waiting
   * for a writer cannot close a cycle with it (deliveries.queries.ts SUCCEED_MANY says why that matters). Taken by a
   * statement of its own, it also lets the finishing statement's snapshot see every writer that
   * added to the line; the second statement that promotes a next delivery the snapshot missed is
   * for a caller outside a transaction.
   */
  private async finish(
    tx: UnitOfWork,
    claimed: ClaimedDelivery,
    status: 'succeeded' | 'failed',
    result: AttemptResult,
  ): Promise<{ next: NextInLine | null } | null> {
    await lockLine(tx, claimed.endpoint_id, claimed.ordering_key);
    const row = await finishDelivery(tx, claimed, status, result);
    if (row === null) return null;
    if (row.next !== null) return { next: row.next };
    if (row.unfinished <= 0) return { next: null };
    return { next: await this.promoteNext(tx, claimed) };
  }

  /** Makes the line's next pending delivery its head (when the finishing statement could not see it). */
  private async promoteNext(tx: UnitOfWork, claimed: ClaimedDelivery): Promise<NextInLine | null> {
    return promoteNextInLine(tx, claimed.endpoint_id, claimed.ordering_key);
  }

  /** Starts or continues the endpoint's run of failures; five days of it disables the endpoint. True when it is now disabled. */
  private async noteFailure(tx: UnitOfWork, endpointId: number): Promise<boolean> {
    if (!(await noteEndpointFailure(tx, endpointId, FAILING_DAYS_BEFORE_DISABLE))) return false;
    await disableEndpoint(tx, endpointId, `Every delivery failed for ${FAILING_DAYS_BEFORE_DISABLE} days`);
    return true;
  }

  /**
   * The relay's step (docs/events.md): marks up to `limit` due heads of active endpoints as queued
   * and returns them, for the caller to put on the delivery queue. A delivery queued but never
   * attempted (Redis lost, say) is returned again a minute later; so is one whose worker died
   * mid-attempt once its lease runs out.
   */
  async takeDue(op: UnitOfWork, limit: number): Promise<{ id: string; attempts: number; endpointId: number }[]> {
    await releaseExpiredLeases(op);
    return takeDueDeliveries(op, limit);
  }

  /** Gives back deliveries that could not be put on the queue, so the next relay step takes them at once. */
  async untake(op: UnitOfWork, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await untakeDeliveries(op, ids);
  }

  /** Seconds the oldest due delivery has waited to be sent (the outbox lag metric); 0 when none waits. */
  async lagSeconds(op: UnitOfWork): Promise<number> {
    return Math.max(0, (await oldestDueWaitSeconds(op)) ?? 0);
  }
}
