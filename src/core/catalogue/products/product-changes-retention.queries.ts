import type { UnitOfWork } from '../../platform/ctx.ts';
import { bool, int } from '../../platform/row-checks.ts';
import { type PreparedSql, preparedSql, queryOne } from '../../platform/sql.ts';

/*
 * Retention of the sync feed's change log (product_changes, docs/products.md "Sync feed",
 * "Retention") and of the role log it reads (api_key_role_changes). The purges are the one
 * statement on each of these tables that spans teams.
 */

/**
 * A purge batch: deletes up to `batch` rows of `table` whose `at` is more than `days` days before
 * the transaction's start, and counts them (parameters: days, batch, batch). Per row of `owners`
 * (aliased `o`; `ownedBy` ties the log's rows, `c`, to one of them) it reads the range of the log's
 * (owner..., at) index before the horizon, so a run that finds nothing to delete reads about one
 * index entry per owner, not the whole log; the ids then go through the primary key (`= any(array)`:
 * `in (subquery)` made the planner hash the ids and scan the whole table).
 */
function expiredRowsDelete(name: string, table: string, owners: string, ownedBy: string): PreparedSql {
  return preparedSql(
    name,
    `with gone as (
       delete from ${table} where id = any(array(
         select old.id from ${owners} o cross join lateral (
           select c.id from ${table} c
            where ${ownedBy} and c.at < now() - ?::int * interval '1 day'
            limit ?::int
         ) old limit ?::int
       )) returning 1
     )
     select count(*)::int as n from gone`,
  );
}

/** Entries of the change log, per team (product_changes_feed_order: team_id, at, ...). */
const DELETE_EXPIRED = expiredRowsDelete('products.changes.deleteExpired', 'product_changes', 'teams', 'c.team_id = o.id');

/**
 * Rows of the role log, per API key (api_key_role_changes_key_at: team_id, key_id, at). None is
 * kept: purgeExpiredRoleChanges says why the feed never reads one. The trigger writes a key's own
 * team, and the foreign key keeps every row's key in api_keys, so walking the keys reaches every row.
 */
const DELETE_EXPIRED_ROLE_CHANGES = expiredRowsDelete(
  'products.changes.deleteExpiredRoleChanges',
  'api_key_role_changes',
  'api_keys',
  'c.team_id = o.team_id and c.key_id = o.id',
);

async function deleteExpired(op: UnitOfWork, statement: PreparedSql, days: number, batch: number): Promise<number> {
  const row = await queryOne<{ n: unknown }>(op, statement, [days, batch, batch]);
  return int(row!.n, 'n');
}

/** Deletes up to `batch` change-log entries of any team older than `days` days; how many. */
export async function deleteExpiredProductChanges(op: UnitOfWork, days: number, batch: number): Promise<number> {
  return deleteExpired(op, DELETE_EXPIRED, days, batch);
}

/** Deletes up to `batch` role-log rows of any key older than `days` days; how many. */
export async function deleteExpiredRoleChanges(op: UnitOfWork, days: number, batch: number): Promise<number> {
  return deleteExpired(op, DELETE_EXPIRED_ROLE_CHANGES, days, batch);
}

/**
 * Whether `lower` lies before the change log's horizon: more than `days` days before this
 * statement's clock (clock_timestamp(), not the transaction's start; see requireRetainedSince).
 */
export async function isBeforeRetention(op: UnitOfWork, lower: string, days: number): Promise<boolean> {
  const row = await queryOne<{ expired: unknown }>(op, BEFORE_RETENTION, [lower, days]);
  return bool(row!.expired, 'expired');
}

const BEFORE_RETENTION = preparedSql('products.changes.beforeRetention', `select ?::timestamptz < clock_timestamp() - ?::int * interval '1 day' as expired`);
