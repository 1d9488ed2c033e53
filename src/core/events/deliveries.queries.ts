import type { UnitOfWork } from '../platform/ctx.ts';
import { bigintText, bool, int, nullableBigintText, nullableFloat, nullableInt, nullableText, text } from '../platform/row-checks.ts';
import { intArray, preparedSql, queryOne, queryRows, textArray } from '../platform/sql.ts';

/*
 * Statements on a webhook endpoint's deliveries: webhook_deliveries, their lines
 * (webhook_delivery_lines) and attempts (webhook_attempts), as the delivery engine runs them
 * (DeliveryService); what each locks and why is said here, with the SQL. The integrator tools'
 * reads, replays and the retention purge are deliveries-admin.queries.ts.
 */

/** A delivery claimed for an attempt, with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  team_id: number;
  endpoint_id: number;
  ordering_key: string;
  /** The body's sequence (its first delivery's for a replay), as bigint digits. */
  sequence: string;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  /** The event's body as stored (outbox/outbox.ts: JSON.stringify of an object without `sequence`). */
  body: string;
  event_id: string;
}

/** What an attempt recorded: delivery.service.ts's AttemptResult, less what only decides the next step. */
export interface AttemptRecord {
  statusCode: number | null;
  error: string | null;
  excerpt: string | null;
  durationMs: number;
}

/** A delivery's next in line, made its line's head. */
export interface NextInLine {
  id: string;
  attempts: number;
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
 *
 * Each claimed delivery's event is read by primary key in a subquery of its own (`limit 1` keeps
 * PostgreSQL from folding it back into a join; the team is checked on the row it returns). As a
 * join on id and team, statistics taken while the outbox held a handful of events (every column then
 * looks unique to the planner) made the (team_id, created_at) index look as good as the key: each
 * claimed delivery of the burst that followed read every event of its team and kept one (3.5
 * million index fetches for the 20,000 deliveries of the benchmark's first round;
 * test/events/delivery-claim-plan.core.test.ts). Joined, other stale statistics gave a hash join
 * over the whole outbox per claim in a scratch check; this form stayed on the key in each.
 */
export const CLAIM_MANY = preparedSql(
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
          case when e.previous_secret_expires_at > now() then e.previous_secret end as previous_secret, o.body, o.event_id
     from claimed c join webhook_endpoints e on e.id = c.endpoint_id
     cross join lateral (select o.body::text as body, o.event_id, o.team_id from outbox_events o where o.id = c.event_id limit 1) o
    where o.team_id = c.team_id`,
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
 * Writers (outbox/outbox.ts) lock line rows as they add events, one line per event and several in one
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

function attemptParams(claimed: ClaimedDelivery, result: AttemptRecord): unknown[] {
  return [claimed.team_id, claimed.id, claimed.attempts, result.durationMs, result.durationMs, result.statusCode, result.error, result.excerpt];
}

function claimedOf(row: Record<string, unknown>): ClaimedDelivery {
  return {
    id: bigintText(row.id, 'id'),
    team_id: int(row.team_id, 'team_id'),
    endpoint_id: int(row.endpoint_id, 'endpoint_id'),
    ordering_key: text(row.ordering_key, 'ordering_key'),
    sequence: bigintText(row.sequence, 'sequence'),
    attempts: int(row.attempts, 'attempts'),
    url: text(row.url, 'url'),
    secret: text(row.secret, 'secret'),
    previous_secret: nullableText(row.previous_secret, 'previous_secret'),
    body: text(row.body, 'body'),
    event_id: text(row.event_id, 'event_id'),
  };
}

function nextOf(id: unknown, attempts: unknown): NextInLine | null {
  const nextId = nullableBigintText(id, 'next_id');
  return nextId === null ? null : { id: nextId, attempts: int(attempts, 'next_attempts') };
}

/** Claims the due, ready deliveries among `ids` whose endpoint is active, leasing each for `leaseMs` (CLAIM_MANY). */
export async function claimDeliveries(op: UnitOfWork, ids: readonly string[], leaseMs: number): Promise<ClaimedDelivery[]> {
  const rows = await queryRows<Record<string, unknown>>(op, CLAIM_MANY, [`{${ids.join(',')}}`, leaseMs]);
  return rows.map(claimedOf);
}

/** One delivery of a batch finished by succeedDeliveries: `free` false when a writer held its line, `finished` false when its lease ran out. */
export interface BatchFinish {
  id: string;
  free: boolean;
  finished: boolean;
  /** The line's unfinished deliveries after this one; null when it was not finished. */
  unfinished: number | null;
  next: NextInLine | null;
}

/** Records the successful attempts of a batch and finishes those whose line nobody holds (SUCCEED_MANY); one row per delivery. */
export async function succeedDeliveries(op: UnitOfWork, claimed: readonly ClaimedDelivery[], results: readonly AttemptRecord[]): Promise<BatchFinish[]> {
  const rows = await queryRows<Record<string, unknown>>(op, SUCCEED_MANY, [
    `{${claimed.map((c) => c.id).join(',')}}`,
    intArray(claimed.map((c) => c.team_id)),
    intArray(claimed.map((c) => c.attempts)),
    intArray(results.map((r) => r.statusCode ?? 0)),
    intArray(results.map((r) => r.durationMs)),
    textArray(results.map((r) => r.excerpt ?? '')),
    intArray(claimed.map((c) => c.endpoint_id)),
    textArray(claimed.map((c) => c.ordering_key)),
  ]);
  return rows.map((row) => ({
    id: bigintText(row.id, 'id'),
    free: bool(row.free, 'free'),
    finished: bool(row.finished, 'finished'),
    unfinished: nullableInt(row.unfinished, 'unfinished'),
    next: nextOf(row.next_id, row.next_attempts),
  }));
}

/** Locks a delivery's line (LOCK_LINE): the first lock of the transaction that finishes it singly. */
export async function lockLine(tx: UnitOfWork, endpointId: number, orderingKey: string): Promise<void> {
  await queryRows(tx, LOCK_LINE, [endpointId, orderingKey]);
}

/**
 * Records the attempt and finishes the claimed delivery (FINISH). Null when its lease ran out and
 * it was given back meanwhile; else the line's unfinished count after it and the next delivery
 * made head (null when the statement's snapshot saw none).
 */
export async function finishDelivery(
  tx: UnitOfWork,
  claimed: ClaimedDelivery,
  status: 'succeeded' | 'failed',
  result: AttemptRecord,
): Promise<{ unfinished: number; next: NextInLine | null } | null> {
  const row = await queryOne<Record<string, unknown>>(tx, FINISH, [
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
  const unfinished = row === null ? null : nullableInt(row.unfinished, 'unfinished');
  if (row === null || unfinished === null) return null;
  return { unfinished, next: nextOf(row.next_id, row.next_attempts) };
}

/** Makes the line's next pending delivery its head (when the finishing statement could not see it). */
export async function promoteNextInLine(tx: UnitOfWork, endpointId: number, orderingKey: string): Promise<NextInLine | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update webhook_deliveries set ready = true where id = (${nextInLine('?', '?')}) returning id, attempts`,
    [endpointId, orderingKey],
  );
  return row && nextOf(row.id, row.attempts);
}

/** Records a failed attempt and puts the delivery back to pending for a retry in `waitMs`; false when its lease ran out meanwhile. */
export async function rescheduleDelivery(tx: UnitOfWork, claimed: ClaimedDelivery, result: AttemptRecord, waitMs: number): Promise<boolean> {
  const rescheduled = await queryRows(
    tx,
    `with attempt as (${ATTEMPT_INSERT})
     update webhook_deliveries set status = 'pending', lease_until = null, queued_at = null, next_attempt_at = now() + (? * interval '1 millisecond'),
            last_status = ?, last_error = ? where id = ? and status = 'delivering' and attempts = ? returning id`,
    [...attemptParams(claimed, result), waitMs, result.statusCode, result.error, claimed.id, claimed.attempts],
  );
  return rescheduled.length > 0;
}

/**
 * Gives back deliveries whose lease ran out (their worker died mid-attempt). Skips what a
 * finishing worker holds (it is finishing it after all), so relay and worker never wait on each other.
 */
export async function releaseExpiredLeases(op: UnitOfWork): Promise<void> {
  await queryRows(
    op,
    `update webhook_deliveries set status = 'pending', lease_until = null, queued_at = null
      where id in (select id from webhook_deliveries where status = 'delivering' and lease_until < now() for update skip locked)`,
  );
}

/** Marks up to `limit` due heads of active endpoints as queued (again, after a minute unattempted) and returns them. */
export async function takeDueDeliveries(op: UnitOfWork, limit: number): Promise<{ id: string; attempts: number; endpointId: number }[]> {
  const rows = await queryRows<Record<string, unknown>>(
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
  return rows.map((row) => ({ id: bigintText(row.id, 'id'), attempts: int(row.attempts, 'attempts'), endpointId: int(row.endpointId, 'endpointId') }));
}

/** Clears the queued mark of pending deliveries, so the next relay step takes them at once. */
export async function untakeDeliveries(op: UnitOfWork, ids: readonly string[]): Promise<void> {
  await queryRows(op, `update webhook_deliveries set queued_at = null where id = any(?::bigint[]) and status = 'pending'`, [`{${ids.join(',')}}`]);
}

/** Seconds the oldest due delivery has waited; null when none waits. */
export async function oldestDueWaitSeconds(op: UnitOfWork): Promise<number | null> {
  const row = await queryOne<Record<string, unknown>>(
    op,
    `select extract(epoch from now() - min(next_attempt_at))::float8 as lag from webhook_deliveries where status = 'pending' and ready and next_attempt_at <= now()`,
  );
  return row === null ? null : nullableFloat(row.lag, 'lag');
}
