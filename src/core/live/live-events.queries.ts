import type { TeamScope, UnitOfWork } from '../platform/ctx.ts';
import type { LiveRowInput } from '../platform/live-log.queries.ts';
import { bigintNumber, bool, int, intList, nullableInt, text } from '../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../platform/sql.ts';

/*
 * Statements on the live log (live_events, live_positions, live_team_heads; docs/graphql.md "Live
 * updates") as the relay and the streams read it. Rows are written without a position in the
 * change's transaction (platform/live-log.queries.ts); the live relay gives committed rows their
 * positions under the counter row's lock (live-relay.ts says why).
 */

/** A positioned live row, as the relay publishes it and readers read it: the row as written, its body parsed. */
export interface LiveRow extends Omit<LiveRowInput, 'body'> {
  position: number;
  body: Record<string, unknown>;
  /** When the row was written (epoch ms, the database clock), for the lag metric. */
  writtenAtMs: number;
}

const COLUMNS = `position, team_id, stream, event_type, subject_id, folder_ids, brand_id, category_id, drafts_only, body,
  (extract(epoch from created_at) * 1000)::bigint as written_ms`;

function liveRow(row: Record<string, unknown>): LiveRow {
  const body = row.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Error('live_events.body: expected a JSON object');
  return {
    position: bigintNumber(row.position, 'position'),
    teamId: int(row.team_id, 'team_id'),
    stream: text(row.stream, 'stream'),
    eventType: text(row.event_type, 'event_type'),
    subjectId: text(row.subject_id, 'subject_id'),
    folderIds: intList(row.folder_ids, 'folder_ids'),
    brandId: nullableInt(row.brand_id, 'brand_id'),
    categoryId: nullableInt(row.category_id, 'category_id'),
    draftsOnly: bool(row.drafts_only, 'drafts_only'),
    body: body as Record<string, unknown>,
    writtenAtMs: bigintNumber(row.written_ms, 'written_ms'),
  };
}

/** Whether any committed row waits for a position (the relay's cheap check before it takes the lock). */
export async function anyUnpositioned(op: UnitOfWork): Promise<boolean> {
  const row = await queryOne<Record<string, unknown>>(op, 'select exists (select 1 from live_events where position is null) as any', []);
  return bool(row!.any, 'any');
}

/** Locks the position counter to the end of the transaction; returns the last position given. */
export async function lockPositions(tx: UnitOfWork): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(tx, 'select last from live_positions where id = 1 for update', []);
  return bigintNumber(row!.last, 'last');
}

/**
 * Gives up to `limit` committed, unpositioned rows the positions after `last`, in id order, and
 * moves the counter and the teams' heads. Must run after lockPositions, in its transaction and in
 * a statement of its own (so its snapshot sees what the previous holder of the lock committed).
 * Returns the rows positioned, in position order, and each team's head before them.
 */
export async function positionRows(tx: UnitOfWork, last: number, limit: number): Promise<{ rows: LiveRow[]; previous: Map<number, number> }> {
  const raw = await queryRows<Record<string, unknown>>(
    tx,
    `with todo as (select id, row_number() over (order by id) as rn from live_events where position is null order by id limit ?),
     placed as (update live_events l set position = ?::bigint + todo.rn from todo where l.id = todo.id returning l.*)
     select ${COLUMNS} from placed order by position`,
    [limit, last],
  );
  const rows = raw.map(liveRow);
  const previous = new Map<number, number>();
  if (rows.length === 0) return { rows, previous };
  const heads = new Map<number, number>();
  for (const row of rows) heads.set(row.teamId, row.position);
  const before = await queryRows<Record<string, unknown>>(tx, `select h.team_id, h.last_position from live_team_heads h where h.team_id = any(?::int[])`, [
    intArray([...heads.keys()]),
  ]);
  for (const team of heads.keys()) previous.set(team, 0);
  for (const row of before) previous.set(int(row.team_id, 'team_id'), bigintNumber(row.last_position, 'last_position'));
  await queryRows(
    tx,
    `insert into live_team_heads (team_id, last_position) select * from unnest(?::int[], ?::bigint[])
       on conflict (team_id) do update set last_position = excluded.last_position`,
    [intArray([...heads.keys()]), `{${[...heads.values()].join(',')}}`],
  );
  await queryRows(tx, 'update live_positions set last = ? where id = 1', [rows[rows.length - 1]!.position]);
  return { rows, previous };
}

/** A team's rows after `after`, in position order, at most `limit`. */
export async function rowsAfter(scope: TeamScope, after: number, limit: number): Promise<LiveRow[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${COLUMNS} from live_events where team_id = ? and position > ? order by position limit ?`,
    [scope.teamId, after, limit],
  );
  return rows.map(liveRow);
}

/** The last position given to each of these teams' rows (0: none yet). */
export async function teamHeads(op: UnitOfWork, teamIds: readonly number[]): Promise<Map<number, number>> {
  const heads = new Map<number, number>(teamIds.map((id) => [id, 0]));
  if (teamIds.length === 0) return heads;
  const rows = await queryRows<Record<string, unknown>>(op, 'select team_id, last_position from live_team_heads where team_id = any(?::int[])', [
    intArray(teamIds),
  ]);
  for (const row of rows) heads.set(int(row.team_id, 'team_id'), bigintNumber(row.last_position, 'last_position'));
  return heads;
}

/** The window: positions below `purgedBelow` are gone; `last` is the newest position given. */
export async function positionWindow(op: UnitOfWork): Promise<{ purgedBelow: number; last: number }> {
  const row = await queryOne<Record<string, unknown>>(op, 'select purged_below, last from live_positions where id = 1', []);
  return { purgedBelow: bigintNumber(row!.purged_below, 'purged_below'), last: bigintNumber(row!.last, 'last') };
}

/**
 * Deletes positioned rows up to the newest one written more than `minutes` ago (at most `batch`
 * positions a call) and moves the window's start past them. Returns how many rows went.
 */
export async function purgeLiveRows(op: UnitOfWork, minutes: number, batch: number): Promise<number> {
  const rows = await queryRows<Record<string, unknown>>(
    op,
    `with bounds as (
       select (select max(position) from live_events where position is not null and created_at < now() - make_interval(mins => ?::int)) as oldest,
              (select purged_below + ?::bigint - 1 from live_positions where id = 1) as cap),
     cut as (select case when oldest is null then null else least(oldest, cap) end as upto from bounds),
     gone as (delete from live_events l using cut where l.position is not null and l.position <= cut.upto returning l.position),
     moved as (update live_positions p set purged_below = greatest(p.purged_below, cut.upto + 1) from cut where p.id = 1 and cut.upto is not null returning 1)
     select count(*)::int as n from gone`,
    [minutes, batch],
  );
  return int(rows[0]!.n, 'n');
}
