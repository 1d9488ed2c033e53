import type { TestEnv } from './env.ts';

/** to_char's format for a timestamp as the feed spells it (UTC, six fractional digits). */
export const FEED_TIME = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/**
 * Sync tests without waiting (docs/products.md "Why a scan sees every product exactly once"): time
 * never passes; what a step wrote is moved an hour into the past with SQL (every timestamp it
 * wrote, in the products, the change log and the role log, so their order is kept), and a client's
 * saved syncedUntil is moved back an hour with it, so the next cycle's window holds the step under
 * the 30-second bound.
 */
export function syncClock(env: TestEnv) {
  const db = <T>(sql: string, params: unknown[] = []) => env.orm.em.fork().execute<T[]>(sql, params);
  return {
    db,
    /** The database clock, where a step begins. */
    async clock(): Promise<string> {
      return (await db<{ t: string }>(`select to_char(clock_timestamp() at time zone 'UTC', ${FEED_TIME}) as t`))[0]!.t;
    },
    /** The database clock minus a PostgreSQL interval (`'30 days 1 minute'`), as the feed spells timestamps. */
    async ago(interval: string): Promise<string> {
      return (await db<{ t: string }>(`select to_char((clock_timestamp() - ?::interval) at time zone 'UTC', ${FEED_TIME}) as t`, [interval]))[0]!.t;
    },
    /** Moves what a step wrote (from `since` on) an hour into the past, keeping its order. */
    async settle(teamId: number, since: string): Promise<void> {
      for (const column of ['updated_at', 'created_at', 'published_at', 'deleted_at']) {
        await db(`update products set ${column} = ${column} - interval '1 hour' where team_id = ? and ${column} >= ?::timestamptz`, [teamId, since]);
      }
      await db(`update product_changes set at = at - interval '1 hour' where team_id = ? and at >= ?::timestamptz`, [teamId, since]);
      await db(`update api_key_role_changes set at = at - interval '1 hour' where team_id = ? and at >= ?::timestamptz`, [teamId, since]);
    },
    async anHourBefore(syncedUntil: string): Promise<string> {
      const rows = await db<{ t: string }>(`select to_char((?::timestamptz - interval '1 hour') at time zone 'UTC', ${FEED_TIME}) as t`, [syncedUntil]);
      return rows[0]!.t;
    },
  };
}

export type SyncClock = ReturnType<typeof syncClock>;

/** Signed links differ on every read; the projection without them. */
export function unsigned(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unsigned);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !['previewUrl', 'downloadUrl', 'downloadUrlExpiresAt'].includes(key))
      .map(([key, v]) => [key, unsigned(v)]),
  );
}
