import type { Ctx } from '../platform/ctx.ts';
import { queryOne, queryRows } from '../platform/sql.ts';
import { inTransaction } from '../platform/tx.ts';
import { retryAfterMs, retryDelayMs } from './retry-schedule.ts';
import { signatureHeaders } from './signing.ts';

type UnitOfWork = Pick<Ctx, 'em'>;

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
/** An endpoint whose deliveries have all failed this long is disabled (issue 13). */
const FAILING_DAYS_BEFORE_DISABLE = 5;
/** How much of a receiver's answer is kept with an attempt. */
const RESPONSE_EXCERPT_BYTES = 1024;

interface Claimed {
  id: string;
  team_id: number;
  endpoint_id: number;
  ordering_key: string;
  sequence: string;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  body: Record<string, unknown>;
  event_id: string;
}

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
  | { outcome: 'succeeded' | 'failed' | 'retry_scheduled' | 'endpoint_disabled'; attempt: number; statusCode: number | null; durationMs: number; next: { id: string; attempts: number } | null };

function isSuccess(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Webhook delivery (docs/events.md): claims the head of a line, POSTs the event through the
 * outbound guard with Standard Webhooks signatures, records the attempt, then either finishes the
 * delivery (and promotes the next in its line) or schedules its retry. At least once: a worker
 * that dies mid-attempt leaves a lease that expires, and the event is sent again with its eventId.
 */
export class DeliveryService {
  private readonly poster: WebhookPoster;
  private readonly settings: DeliverySettings;

  constructor(deps: { poster: WebhookPoster; settings: DeliverySettings }) {
    this.poster = deps.poster;
    this.settings = deps.settings;
  }

  /** One attempt of one delivery; 'skipped' when it is not the due head of an active endpoint's line (already done, not yet due, claimed elsewhere). */
  async attempt(op: UnitOfWork, deliveryId: string): Promise<DeliveryOutcome> {
    const claimed = await this.claim(op, deliveryId);
    if (!claimed) return { outcome: 'skipped' };
    const result = await this.send(claimed);
    return inTransaction(op, (tx) => this.record(tx, claimed, result));
  }

  private async claim(op: UnitOfWork, deliveryId: string): Promise<Claimed | null> {
    return queryOne<Claimed>(
      op,
      `update webhook_deliveries d set status = 'delivering', lease_until = now() + (? * interval '1 millisecond'), attempts = d.attempts + 1
         from webhook_endpoints e, outbox_events o
        where d.id = ? and d.status = 'pending' and d.ready and d.next_attempt_at <= now() + interval '1 second'
          and e.id = d.endpoint_id and e.team_id = d.team_id and e.state = 'active' and o.id = d.event_id and o.team_id = d.team_id
        returning d.id, d.team_id, d.endpoint_id, d.ordering_key, d.sequence, d.attempts, e.url, e.secret,
                  case when e.previous_secret_expires_at > now() then e.previous_secret end as previous_secret, o.body, o.event_id`,
      [this.settings.attemptTimeoutMs + LEASE_MARGIN_MS, deliveryId],
    );
  }

  private async send(claimed: Claimed): Promise<AttemptResult> {
    const body = JSON.stringify({ ...claimed.body, sequence: Number(claimed.sequence) });
    const secrets = claimed.previous_secret ? [claimed.secret, claimed.previous_secret] : [claimed.secret];
    const headers = { 'content-type': 'application/json', 'user-agent': 'Shelf-Webhooks/1.0', ...signatureHeaders(secrets, claimed.event_id, body) };
    const started = Date.now();
    try {
      const response = await this.poster.post(claimed.url, body, { headers, timeoutMs: this.settings.attemptTimeoutMs, maxResponseBytes: 64 * 1024 });
      return {
        statusCode: response.status,
        error: isSuccess(response.status) ? null : `HTTP ${response.status}`,
        excerpt: response.body.subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8'),
        durationMs: response.durationMs,
        retryAfterMs: response.status === 429 || response.status === 503 ? retryAfterMs(headerValue(response.headers['retry-after'])) : null,
      };
    } catch (e) {
      const kind = (e as { kind?: string; reason?: string }).kind ?? (e as { reason?: string }).reason ?? 'error';
      return { statusCode: null, error: `${kind}: ${(e as Error).message}`.slice(0, 500), excerpt: null, durationMs: Date.now() - started, retryAfterMs: null };
    }
  }

  private async record(tx: UnitOfWork, claimed: Claimed, result: AttemptResult): Promise<DeliveryOutcome> {
    await queryRows(
      tx,
      `insert into webhook_attempts (team_id, delivery_id, attempt, started_at, duration_ms, status_code, error, response_excerpt)
       values (?, ?, ?, now() - (? * interval '1 millisecond'), ?, ?, ?, ?) on conflict (delivery_id, attempt) do nothing`,
      [claimed.team_id, claimed.id, claimed.attempts, result.durationMs, result.durationMs, result.statusCode, result.error, result.excerpt],
    );
    const base = { attempt: claimed.attempts, statusCode: result.statusCode, durationMs: result.durationMs };
    if (isSuccess(result.statusCode)) {
      if (!(await this.finish(tx, claimed, 'succeeded', result))) return { outcome: 'skipped' };
      await queryRows(tx, 'update webhook_endpoints set failing_since = null where id = ? and failing_since is not null', [claimed.endpoint_id]);
      return { outcome: 'succeeded', ...base, next: await this.promoteNext(tx, claimed) };
    }
    if (result.statusCode === 410) {
      if (!(await this.finish(tx, claimed, 'failed', result))) return { outcome: 'skipped' };
      await this.disableEndpoint(tx, claimed.endpoint_id, 'The receiver answered 410 Gone');
      return { outcome: 'endpoint_disabled', ...base, next: await this.promoteNext(tx, claimed) };
    }
    const delay = retryDelayMs(this.settings.retryScheduleMs, claimed.attempts);
    if (delay === null) {
      if (!(await this.finish(tx, claimed, 'failed', result))) return { outcome: 'skipped' };
      const disabled = await this.noteFailure(tx, claimed.endpoint_id);
      return { outcome: disabled ? 'endpoint_disabled' : 'failed', ...base, next: await this.promoteNext(tx, claimed) };
    }
    const wait = result.retryAfterMs === null ? delay : Math.min(Math.max(result.retryAfterMs, 1000), 86_400_000);
    const rescheduled = await queryRows(
      tx,
      `update webhook_deliveries set status = 'pending', lease_until = null, queued_at = null, next_attempt_at = now() + (? * interval '1 millisecond'),
              last_status = ?, last_error = ? where id = ? and status = 'delivering' and attempts = ? returning id`,
      [wait, result.statusCode, result.error, claimed.id, claimed.attempts],
    );
    // a lease that ran out gave the delivery back meanwhile: the attempt is recorded, the rest is the new claimant's
    if (rescheduled.length === 0) return { outcome: 'skipped' };
    const disabled = await this.noteFailure(tx, claimed.endpoint_id);
    return { outcome: disabled ? 'endpoint_disabled' : 'retry_scheduled', ...base, next: null };
  }

  /** Finishes the claimed delivery; false when its lease ran out and it was given back meanwhile (then nothing else may change). */
  private async finish(tx: UnitOfWork, claimed: Claimed, status: 'succeeded' | 'failed', result: AttemptResult): Promise<boolean> {
    const rows = await queryRows(
      tx,
      `update webhook_deliveries set status = ?, finished_at = now(), lease_until = null, last_status = ?, last_error = ?
        where id = ? and status = 'delivering' and attempts = ? returning id`,
      [status, result.statusCode, result.error, claimed.id, claimed.attempts],
    );
    return rows.length > 0;
  }

  /**
   * The line's next delivery becomes its head once this one is finished. The line row's lock
   * (taken by the update) orders this with writers adding to the line (outbox.ts).
   */
  private async promoteNext(tx: UnitOfWork, claimed: Claimed): Promise<{ id: string; attempts: number } | null> {
    const line = await queryOne<{ unfinished: number }>(
      tx,
      'update webhook_delivery_lines set unfinished = unfinished - 1 where endpoint_id = ? and ordering_key = ? returning unfinished',
      [claimed.endpoint_id, claimed.ordering_key],
    );
    if (!line || line.unfinished <= 0) return null;
    return queryOne<{ id: string; attempts: number }>(
      tx,
      `update webhook_deliveries set ready = true where id = (
         select id from webhook_deliveries where endpoint_id = ? and ordering_key = ? and status = 'pending' order by sequence limit 1)
       returning id, attempts`,
      [claimed.endpoint_id, claimed.ordering_key],
    );
  }

  /** Starts or continues the endpoint's run of failures; five days of it disables the endpoint. True when it is now disabled. */
  private async noteFailure(tx: UnitOfWork, endpointId: number): Promise<boolean> {
    const row = await queryOne<{ expired: boolean }>(
      tx,
      `update webhook_endpoints set failing_since = coalesce(failing_since, now()) where id = ?
       returning failing_since <= now() - interval '${FAILING_DAYS_BEFORE_DISABLE} days' as expired`,
      [endpointId],
    );
    if (!row?.expired) return false;
    await this.disableEndpoint(tx, endpointId, `Every delivery failed for ${FAILING_DAYS_BEFORE_DISABLE} days`);
    return true;
  }

  private async disableEndpoint(tx: UnitOfWork, endpointId: number, reason: string): Promise<void> {
    await queryRows(
      tx,
      `update webhook_endpoints set state = 'disabled', disabled_reason = ?, disabled_at = now(), updated_at = now() where id = ? and state = 'active'`,
      [reason, endpointId],
    );
  }

  /**
   * The relay's step (docs/events.md): marks up to `limit` due heads of active endpoints as queued
   * and returns them, for the caller to put on the delivery queue. A delivery queued but never
   * attempted (Redis lost, say) is returned again a minute later; so is one whose worker died
   * mid-attempt once its lease runs out.
   */
  async takeDue(op: UnitOfWork, limit: number): Promise<{ id: string; attempts: number }[]> {
    await queryRows(
      op,
      `update webhook_deliveries set status = 'pending', lease_until = null, queued_at = null
        where status = 'delivering' and lease_until < now()`,
    );
    return queryRows<{ id: string; attempts: number }>(
      op,
      `with due as (
         select d.id from webhook_deliveries d
          where d.status = 'pending' and d.ready and d.next_attempt_at <= now()
            and (d.queued_at is null or d.queued_at < now() - interval '60 seconds')
            and exists (select 1 from webhook_endpoints e where e.id = d.endpoint_id and e.state = 'active')
          order by d.next_attempt_at limit ? for update of d skip locked)
       update webhook_deliveries d set queued_at = now() from due where d.id = due.id returning d.id, d.attempts`,
      [limit],
    );
  }

  /** Gives back deliveries that could not be put on the queue, so the next relay step takes them at once. */
  async untake(op: UnitOfWork, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await queryRows(op, `update webhook_deliveries set queued_at = null where id = any(?::bigint[]) and status = 'pending'`, [`{${ids.join(',')}}`]);
  }

  /** Seconds the oldest due delivery has waited to be sent (the outbox lag metric); 0 when none waits. */
  async lagSeconds(op: UnitOfWork): Promise<number> {
    const row = await queryOne<{ lag: number | null }>(
      op,
      `select extract(epoch from now() - min(next_attempt_at))::float8 as lag from webhook_deliveries where status = 'pending' and ready and next_attempt_at <= now()`,
    );
    return Math.max(0, row?.lag ?? 0);
  }
}
