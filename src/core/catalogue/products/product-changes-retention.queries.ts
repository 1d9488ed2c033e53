import type { UnitOfWork } from '../../platform/ctx.ts';
import { bool, int } from '../../platform/row-checks.ts';
import { preparedSql, queryOne } from '../../platform/sql.ts';

/*
 * Retention of the sync feed's change log (product_changes, docs/products.md "Sync feed",
 * "Retention") and of the role log it reads (api_key_role_changes). The purges are the one
 * statement on each of these tables that spans teams.
 */

/**
 * Deletes up to `batch` entries of any team whose `at` is more than `days` days before the
 * transaction's start; how many. Per team it reads the range of product_changes_feed_order
 * (team_id, at, ...) before the horizon, so a run that finds nothing to delete reads about one
 * index entry per team, not the whole log; the ids then go through the primary key (`= any(array)`:
 * `in (subquery)` made the planner hash the ids and scan the whole table).
 */
export async function deleteExpiredProductChanges(op: UnitOfWork, days: number, batch: number): Promise<number> {
  const row = await queryOne<{ n: unknown }>(op, DELETE_EXPIRED, [days, batch, batch]);
  return int(row!.n, 'n');
}

const DELETE_EXPIRED = preparedSql(
  'products.changes.deleteExpired',
  `with gone as (
     delete from product_changes where id = any(array(
       select old.id from teams t cross join lateral (
         select c.id from product_changes c
          where c.team_id = t.id and c.at < now() - ?::int * interval '1 day'
          limit ?::int
       ) old limit ?::int
     )) returning 1
   )
   select count(*)::int as n from gone`,
);

/**
 * Deletes up to `batch` role-log rows (api_key_role_changes) of any key whose `at` is more than
 * `days` days before the transaction's start; how many. None of them is kept: see
 * purgeExpiredRoleChanges for why the feed never reads one. Per key it reads the range of
 * api_key_role_changes_key_at (team_id, key_id, at) before the horizon, so a run with nothing to
 * delete reads about one index entry per API key (the trigger writes a key's own team, and the
 * foreign key keeps every row's key in api_keys); the ids then go through the primary key, as above.
 */
export async function deleteExpiredRoleChanges(op: UnitOfWork, days: number, batch: number): Promise<number> {
  const row = await queryOne<{ n: unknown }>(op, DELETE_EXPIRED_ROLE_CHANGES, [days, batch, batch]);
  return int(row!.n, 'n');
}

const DELETE_EXPIRED_ROLE_CHANGES = preparedSql(
  'products.changes.deleteExpiredRoleChanges',
  `with gone as (
     delete from api_key_role_changes where id = any(array(
       select old.id from api_keys k cross join lateral (
         select c.id from api_key_role_changes c
          where c.team_id = k.team_id and c.key_id = k.id and c.at < now() - ?::int * interval '1 day'
          limit ?::int
       ) old limit ?::int
     )) returning 1
   )
   select count(*)::int as n from gone`,
);

/**
 * Whether `lower` lies before the change log's horizon: more than `days` days before this
 * statement's clock (clock_timestamp(), not the transaction's start; see requireRetainedSince).
 */
export async function isBeforeRetention(op: UnitOfWork, lower: string, days: number): Promise<boolean> {
  const row = await queryOne<{ expired: unknown }>(op, BEFORE_RETENTION, [lower, days]);
  return bool(row!.expired, 'expired');
}

const BEFORE_RETENTION = preparedSql('products.changes.beforeRetention', `select ?::timestamptz < clock_timestamp() - ?::int * interval '1 day' as expired`);
