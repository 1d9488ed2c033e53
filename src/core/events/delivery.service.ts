import { DeadlockException } from '@mikro-orm/core';
import type { UnitOfWork } from '../platform/ctx.ts';
import { intArray, preparedSql, queryOne, queryRows, textArray } from '../platform/sql.ts';
import { inTransaction } from '../platform/tx.ts';
import { retryAfterMs, retryDelayMs } from './retry-schedule.ts';
import { signatureHeaders } from './signing.ts';

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
  /** The event's body as stored (outbox.ts: JSON.stringify of an object without `sequence`). */
  body: string;
  event_id: string;
}

/** Records an attempt (a CTE of the statement that moves the delivery on); `attemptParams` gives its values. */
const ATTEMPT_INSERT = `insert into webhook_attempts (team_id, delivery_id, attempt, started_at, duration_ms, status_code, error, response_excerpt)
  values (?::int, ?::bigint, ?::int, now() - (?::int * interval '1 millisecond'), ?::int, ?::int, ?::text, ?::text) on conflict (delivery_id, attempt) do nothing`;

/*
 * The statements every delivery runs are prepared: PostgreSQL plans them once per connection. As
 * inlined text, planning the finishing statement's five CTEs cost about as much as running it.
 */
/*
 * Claims a batch by primary key whatever PostgreSQL believes of the tables. Written as one plain
 * UPDATE joined to endpoints and events, its plan followed the statistics: taken when few
 * deliveries were pending (the usual state, so also during a burst), they made the partial index of
 * due deliveries look small, and each claim walked every pending delivery (50 ms for 50 of 20,000);
 * taken while endpoints were disabled, each claim probed its ids once per endpoint; with 1,000,000
 * pending, a worker made 9 attempts a minute. Here the deliveries are locked by primary key alone,
 * in id order as the batch finish locks them (`target`), the conditions are checked on those rows,
 * the endpoint's state by a subquery that cannot drive the plan, and the endpoint and event are
 * joined to what was claimed: 2-4 ms for 50 in every case. The body is read as text (its stored
 * bytes), not parsed.
 */
const CLAIM_MANY = preparedSql(
  'events.claimDeliveries',
  `with target as materialized (
     select id, status, ready, next_attempt_at, endpoint_id, team_id from webhook_deliveries where id = any(?::bigint[]) order by id for update),
   claimed as (
     update webhook_deliveries d set status = 'delivering', lease_until = now() + (?::int * interval '1 millisecond'), attempts = d.attempts + 1
       from target t
      where d.id = t.id and t.status = 'pending' and t.ready and t.next_attempt_at <= now() + interval '1 second'
        and (select e.state from webhook_endpoints e where e.id = t.endpoint_id and e.team_id = t.team_id) = 'active'
      returning d.id, d.team_id, d.endpoint_id, d.ordering_key, coalesce(d.body_sequence, d.sequence) as sequence, d.attempts, d.event_id)
   select c.id, c.team_id, c.endpoint_id, c.ordering_key, c.sequence, c.attempts, e.url, e.secret,
          case when e.previous_secret_expires_at > now() then e.previous_secret end as previous_secret, o.body::text as body, o.event_id
     from claimed c join webhook_endpoints e on e.id = c.endpoint_id join outbox_events o on o.id = c.event_id and o.team_id = c.team_id`,
);

/**
 * The delivery that becomes its line's head when the head finishes: the line's first pending one
 * not yet ready (a line has one ready delivery at a time). Every statement that promotes uses this.
 */
function nextInLine(endpointId: string, orderingKey: string): string {
  return `select id from webhook_deliveries where endpoint_id = ${endpointId} and ordering_key = ${orderingKey} and status = 'pending' and not ready order by sequence limit 1`;
}

/**
 * Finishes the successful deliveries of a batch in one statement, as FINISH does for one: each
 * delivery of a batch heads its own line (the relay takes heads only), so lines do not collide.
 *
 * Writers (outbox.ts) lock line rows as they add events, one line per event and several in one
 * transaction (an edit writes its file's line, then its folders'), in no order this statement could
 * share. So it never waits for a line: it locks, in key order, only the lines nobody holds (`free`)
 * and finishes their deliveries; the others are finished one by one, each waiting for its one line
 * (DeliveryService.finish). Waiting for a second line while holding a first is what deadlocked with
 * writers, and the loser's attempts were lost. Every attempt is recorded here either way.
 * One row per input delivery: `free` false for a line a writer held, `finished` false for a lease
 * that ran out meanwhile.
 *
 * The deliveries are locked by primary key (`target`) and their state checked on those rows, for
 * the reason CLAIM_MANY gives: checked on the table, `status = 'delivering'` let the planner walk
 * the partial index of every delivery in flight (up to 2,500) for each batch of 50.
 */
const SUCCEED_MANY = preparedSql(
  'events.succeedDeliveries',
  `with input as (
     select * from unnest(?::bigint[], ?::int[], ?::int[], ?::int[], ?::int[], ?::text[], ?::int[], ?::text[])
       as t(id, team_id, attempt, status_code, duration_ms, excerpt, endpoint_id, ordering_key)),
   free as (
     select l.endpoint_id, l.ordering_key from webhook_delivery_lines l join input on l.endpoint_id = input.endpoint_id and l.ordering_key = input.ordering_key
      order by l.endpoint_id, l.ordering_key for update of l skip locked),
   target as materialized (
     select d.id, d.status, d.attempts from webhook_deliveries d where d.id in (select id from input) order by d.id for update of d),
   attempt as (
     insert into webhook_attempts (team_id, delivery_id, attempt, started_at, duration_ms, status_code, error, response_excerpt)
     select team_id, id, attempt, now() - duration_ms * interval '1 millisecond', duration_ms, status_code, null, excerpt from input
     on conflict (delivery_id, attempt) do nothing),
   finished as (
     update webhook_deliveries d set status = 'succeeded', finished_at = now(), lease_until = null, last_status = input.status_code, last_error = null
       from input join free on free.endpoint_id = input.endpoint_id and free.ordering_key = input.ordering_key join target t on t.id = input.id
      where d.id = t.id and t.status = 'delivering' and t.attempts = input.attempt returning d.id, d.endpoint_id, d.ordering_key),
   endpoint as (
     update webhook_endpoints e set failing_since = null where e.id in (select endpoint_id from finished) and e.failing_since is not null),
   line as (
     update webhook_delivery_lines l set unfinished = l.unfinished - 1 from finished
      where l.endpoint_id = finished.endpoint_id and l.ordering_key = finished.ordering_key returning l.endpoint_id, l.ordering_key, l.unfinished),
   next as (
     update webhook_deliveries d set ready = true where d.id in (
       select (${nextInLine('line.endpoint_id', 'line.ordering_key')}) from line where line.unfinished > 0)
     returning d.id, d.attempts, d.endpoint_id, d.ordering_key)
   select input.id, free.ordering_key is not null as free, finished.id is not null as finished, line.unfinished,
          next.id as next_id, next.attempts as next_attempts
     from input
     left join free on free.endpoint_id = input.endpoint_id and free.ordering_key = input.ordering_key
     left join finished on finished.id = input.id
     left join line on line.endpoint_id = finished.endpoint_id and line.ordering_key = finished.ordering_key
     left join next on next.endpoint_id = line.endpoint_id and next.ordering_key = line.ordering_key`,
);

/** Takes the line of a delivery the single way finishes, before anything else of its transaction (see SUCCEED_MANY). */
const LOCK_LINE = preparedSql('events.lockLine', `select 1 from webhook_delivery_lines where endpoint_id = ? and ordering_key = ? for update`);

const FINISH = preparedSql(
  'events.finishDelivery',
  `with attempt as (${ATTEMPT_INSERT}),
   finished as (
     update webhook_deliveries set status = ?::text, finished_at = now(), lease_until = null, last_status = ?::int, last_error = ?::text
      where id = ?::bigint and status = 'delivering' and attempts = ?::int returning endpoint_id, ordering_key),
   endpoint as (
     update webhook_endpoints e set failing_since = null from finished
      where ?::boolean and e.id = finished.endpoint_id and e.failing_since is not null),
   line as (
     update webhook_delivery_lines l set unfinished = l.unfinished - 1 from finished
      where l.endpoint_id = finished.endpoint_id and l.ordering_key = finished.ordering_key returning l.unfinished),
   next as (
     update webhook_deliveries set ready = true where id = (${nextInLine('?::int', '?::text')}) and exists (select 1 from line where line.unfinished > 0)
     returning id, attempts)
   select (select unfinished from line) as unfinished, (select id from next) as next_id, (select attempts from next) as next_attempts`,
);

function attemptParams(claimed: Claimed, result: AttemptResult): unknown[] {
  return [claimed.team_id, claimed.id, claimed.attempts, result.durationMs, result.durationMs, result.statusCode, result.error, result.excerpt];
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

function finishFailed(stage: 'record' | 'promote', claimed: Claimed, result: AttemptResult, error: unknown): DeliveryOutcome {
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
 * The stored text is JSON.stringify output (outbox.ts, webhook-admin.service.ts) and has no
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
    const claimed = await queryRows<Claimed>(op, CLAIM_MANY, [`{${deliveryIds.join(',')}}`, this.deps.settings.attemptTimeoutMs + LEASE_MARGIN_MS]);
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

  /** Finishes successes in one statement (SUCCEED_MANY); `busy` indexes those whose line a writer held, to finish one by one. */
  private async succeedMany(op: UnitOfWork, claimed: Claimed[], results: AttemptResult[]): Promise<{ outcomes: DeliveryOutcome[]; busy: number[] }> {
    const params = [
      `{${claimed.map((c) => c.id).join(',')}}`,
      intArray(claimed.map((c) => c.team_id)),
      intArray(claimed.map((c) => c.attempts)),
      intArray(results.map((r) => r.statusCode ?? 0)),
      intArray(results.map((r) => r.durationMs)),
      textArray(results.map((r) => r.excerpt ?? '')),
      intArray(claimed.map((c) => c.endpoint_id)),
      textArray(claimed.map((c) => c.ordering_key)),
    ];
    type Row = { id: string; free: boolean; finished: boolean; unfinished: number | null; next_id: string | null; next_attempts: number | null };
    const rows = await withRetries(op, (tx) => queryRows<Row>(tx, SUCCEED_MANY, params));
    const outcomes: DeliveryOutcome[] = [];
    const busy: number[] = [];
    const indexOf = new Map(claimed.map((c, i) => [c.id, i]));
    for (const row of rows) {
      const index = indexOf.get(String(row.id))!;
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
      let next = row.next_id === null ? null : { id: String(row.next_id), attempts: row.next_attempts! };
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

  private async send(claimed: Claimed): Promise<AttemptResult> {
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
  private async record(tx: UnitOfWork, claimed: Claimed, result: AttemptResult): Promise<DeliveryOutcome> {
    const base = { deliveryId: claimed.id, attempt: claimed.attempts, statusCode: result.statusCode, durationMs: result.durationMs };
    if (isSuccess(result.statusCode)) {
      const finished = await this.finish(tx, claimed, 'succeeded', result);
      return finished ? { outcome: 'succeeded', ...base, next: finished.next } : { outcome: 'skipped' };
    }
    if (result.statusCode === 410) {
      const finished = await this.finish(tx, claimed, 'failed', result);
      if (!finished) return { outcome: 'skipped' };
      await this.disableEndpoint(tx, claimed.endpoint_id, 'The receiver answered 410 Gone');
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
    const rescheduled = await queryRows(
      tx,
      `with attempt as (${ATTEMPT_INSERT})
       update webhook_deliveries set status = 'pending', lease_until = null, queued_at = null, next_attempt_at = now() + (? * interval '1 millisecond'),
              last_status = ?, last_error = ? where id = ? and status = 'delivering' and attempts = ? returning id`,
      [...attemptParams(claimed, result), wait, result.statusCode, result.error, claimed.id, claimed.attempts],
    );
    // a lease that ran out gave the delivery back meanwhile: the attempt is recorded, the rest is the new claimant's
    if (rescheduled.length === 0) return { outcome: 'skipped' };
    const disabled = await this.noteFailure(tx, claimed.endpoint_id);
    return { outcome: disabled ? 'endpoint_disabled' : 'retry_scheduled', ...base, next: null };
  }

  /**
   * Finishes the claimed delivery in one statement: records the attempt, sets the final status,
   * clears the endpoint's run of failures on success, counts the line down and makes its next
   * delivery the head. Null when the lease ran out and the delivery was given back meanwhile (then
   * only the attempt is recorded).
   *
   * The line row's lock orders this with writers adding to the line (outbox.ts). It is the first
   * lock of the transaction (`tx`, opened by attemptMany) and the only line it takes, so waiting
   * for a writer cannot close a cycle with it (SUCCEED_MANY says why that matters). Taken by a
   * statement of its own, it also lets the finishing statement's snapshot see every writer that
   * added to the line; the second statement that promotes a next delivery the snapshot missed is
   * for a caller outside a transaction.
   */
  private async finish(
    tx: UnitOfWork,
    claimed: Claimed,
    status: 'succeeded' | 'failed',
    result: AttemptResult,
  ): Promise<{ next: { id: string; attempts: number } | null } | null> {
    await queryRows(tx, LOCK_LINE, [claimed.endpoint_id, claimed.ordering_key]);
    const row = await queryOne<{ unfinished: number | null; next_id: string | null; next_attempts: number | null }>(tx, FINISH, [
      ...attemptParams(claimed, result),
      status,
      result.statusCode,
      result.error,
      claimed.id,
      claimed.attempts,
      status === 'succeeded',
      claimed.endpoint_id,
      claimed.ordering_key,
    ]);
    if (row?.unfinished === null || row?.unfinished === undefined) return null;
    if (row.next_id !== null) return { next: { id: row.next_id, attempts: row.next_attempts! } };
    if (row.unfinished <= 0) return { next: null };
    return { next: await this.promoteNext(tx, claimed) };
  }

  /** Makes the line's next pending delivery its head (when the finishing statement could not see it). */
  private async promoteNext(tx: UnitOfWork, claimed: Claimed): Promise<{ id: string; attempts: number } | null> {
    return queryOne<{ id: string; attempts: number }>(
      tx,
      `update webhook_deliveries set ready = true where id = (${nextInLine('?', '?')}) returning id, attempts`,
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
  async takeDue(op: UnitOfWork, limit: number): Promise<{ id: string; attempts: number; endpointId: number }[]> {
    // skips what a finishing worker holds (it is finishing it after all), so relay and worker never wait on each other here
    await queryRows(
      op,
      `update webhook_deliveries set status = 'pending', lease_until = null, queued_at = null
        where id in (select id from webhook_deliveries where status = 'delivering' and lease_until < now() for update skip locked)`,
    );
    return queryRows<{ id: string; attempts: number; endpointId: number }>(
      op,
      `with due as (
         select d.id from webhook_deliveries d
          where d.status = 'pending' and d.ready and d.next_attempt_at <= now()
            and (d.queued_at is null or d.queued_at < now() - interval '60 seconds')
            and exists (select 1 from webhook_endpoints e where e.id = d.endpoint_id and e.state = 'active')
          order by d.next_attempt_at limit ? for update of d skip locked)
       update webhook_deliveries d set queued_at = now() from due where d.id = due.id returning d.id, d.attempts, d.endpoint_id as "endpointId"`,
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
