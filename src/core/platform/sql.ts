import type { EntityManager } from '@mikro-orm/postgresql';
import type { UnitOfWork } from './ctx.ts';
import { mapDatabaseError } from './db-errors.ts';

/**
 * Lean SQL with `?` placeholders. Inside a transaction it runs through the transaction's
 * EntityManager (so on its connection); outside one it goes straight to the ORM's pg pool.
 * Hot reads go this way: STACK.md measured entity loading at less than half the throughput, and
 * bench/RESULTS-brands.md measured the EntityManager's per-query layers (Kysely executor, query
 * logging) at about a quarter of a brand read's CPU. For plain SQL text the pool path sends the very
 * text the EntityManager would (MikroORM's own parameter formatting). Inside a transaction it throws
 * MikroORM's exception classes (DeadlockException, ...) for inTransaction to retry or map; outside
 * one, the domain error the database-error table gives them (throwMapped).
 */
export async function queryRows<T>(ctx: UnitOfWork, sql: string | PreparedSql, params: unknown[] = []): Promise<T[]> {
  const outside = outsideTransaction(ctx);
  if (outside) return queryPool<T>(outside, sql, params);
  const rows = ctx.em.execute<T[]>(typeof sql === 'string' ? sql : sql.sql, params);
  // inside a transaction, inTransaction maps what it does not retry (deadlocks must reach it as they are)
  return ctx.em.isInTransaction() ? rows : rows.catch(throwMapped);
}

/**
 * A failed statement outside a transaction as the domain error it means (db-errors.ts: an
 * unreachable database is `service_unavailable`, a known constraint its code), so every read maps
 * database errors the same way whichever adapter, page or command made it.
 */
function throwMapped(e: unknown): never {
  throw mapDatabaseError(e);
}

export async function queryOne<T>(ctx: UnitOfWork, sql: string | PreparedSql, params: unknown[] = []): Promise<T | null> {
  const rows = await queryRows<T>(ctx, sql, params);
  return rows[0] ?? null;
}

/** The EntityManager whose pool may serve this context's query, or null when it must go through `ctx.em`. */
function outsideTransaction(ctx: UnitOfWork): EntityManager | null {
  const lazy = (ctx as { [LAZY_UNIT]?: LazyUnit })[LAZY_UNIT];
  // a context whose unit of work was never forked cannot be in a transaction
  const em = lazy && !lazy.fork ? lazy.root : ctx.em;
  // ORM_DEBUG=1 keeps every query on the EntityManager, which logs it
  if (em.config.get('debug')) return null;
  return em === lazy?.root || !em.isInTransaction() ? em : null;
}

async function queryPool<T>(em: EntityManager, sql: string | PreparedSql, params: unknown[]): Promise<T[]> {
  try {
    const pool = await em.getConnection().getNativeClient();
    const result =
      typeof sql === 'string'
        ? await pool.query(em.getPlatform().formatQuery(sql, params))
        : await pool.query({ name: sql.name, text: sql.positional, values: params });
    return result.rows as T[];
  } catch (e) {
    throwMapped(em.getDriver().convertException(e as Error));
  }
}

/**
 * SQL whose parameters are sent bound, not inlined into its text: a named prepared statement
 * (preparedSql: PostgreSQL plans it once per pooled connection) or an unnamed one (boundSql:
 * planned for its values on every run).
 */
export interface PreparedSql {
  /** Unique among prepared statements; names the statement on each connection. Undefined: unnamed. */
  readonly name: string | undefined;
  /** The SQL with `?` placeholders, as the EntityManager runs it inside transactions. */
  readonly sql: string;
  /** The same SQL with `$1, $2, ...`, as the pool prepares it. */
  readonly positional: string;
}

const preparedNames = new Map<string, string>();

/**
 * Declares a prepared statement (module level, once). Outside a transaction its parameters are
 * sent bound rather than inlined, so use it only where each `?` has a type PostgreSQL can infer
 * from its context (a column comparison, limit, offset). bench/RESULTS-brands.md measured the
 * planning it saves at about half of PostgreSQL's CPU for a brand read.
 */
export function preparedSql(name: string, sql: string): PreparedSql {
  const known = preparedNames.get(name);
  if (known !== undefined && known !== sql) throw new Error(`prepared statement ${name} is declared twice with different SQL`);
  const positional = toPositional(sql);
  preparedNames.set(name, sql);
  return { name, sql, positional };
}

/**
 * SQL run outside transactions with its parameters bound but unnamed: PostgreSQL plans it for the
 * actual values each time, as for inlined text, without the text. For large parameters: a colour
 * search passes up to some 150,000 object ids, and inlining them (MikroORM's formatQuery) cost
 * about 4 MB of garbage and 3.6 ms of CPU per statement and held a megabyte-long SQL text per
 * query in flight. The same `?` rules as preparedSql apply; built per call (no registry).
 */
export function boundSql(sql: string): PreparedSql {
  return { name: undefined, sql, positional: toPositional(sql) };
}

/**
 * `?` placeholders to `$n`. A `?` inside a quoted literal or identifier is refused: MikroORM would
 * take it for a placeholder inside transactions, the pool for text outside, and they must agree.
 */
function toPositional(sql: string): string {
  let out = '';
  let quote: string | null = null;
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '?') throw new Error('prepared statements take no ? inside quotes');
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === '?') {
      if (sql[i + 1] === '?' || sql[i - 1] === '\\') throw new Error('prepared statements take plain ? placeholders only');
      out += `$${++n}`;
      continue;
    }
    out += ch;
  }
  return out;
}

interface LazyUnit {
  root: EntityManager;
  fork?: EntityManager;
}

/**
 * Marks contexts made by withLazyUnitOfWork. A spread copy keeps the mark, but spreading reads
 * `em` and so forks: the copy then counts as forked and its own `em` (say a transaction's) is used.
 */
const LAZY_UNIT = Symbol('lazy unit of work');

/**
 * Gives `fields` an `em` that is forked from `root` on first use. A request served by lean reads
 * alone never needs a unit of work, and a fork costs about 5 µs plus garbage (two per request:
 * authentication and the operation), measured in bench/RESULTS-brands.md.
 */
export function withLazyUnitOfWork<T extends object>(root: EntityManager, fields: T): T & UnitOfWork {
  const unit: LazyUnit = { root };
  return {
    ...fields,
    get em() {
      return (unit.fork ??= root.fork());
    },
    [LAZY_UNIT]: unit,
  };
}

/** A piece of SQL with its `?` parameters, in order. */
export interface SqlFragment {
  sql: string;
  params: unknown[];
}

/**
 * The assignments of a partial update, for `update t set ${sql}`: `column = ?` for each field that
 * `changes` gives (undefined leaves the column as it is; null sets it to null), in the order of
 * `columns`, each value its parameter.
 */
export function setClauses<Changes extends object>(columns: readonly (readonly [keyof Changes, string])[], changes: Changes): SqlFragment {
  const sets: string[] = [];
  const params: unknown[] = [];
  for (const [field, column] of columns) {
    if (changes[field] === undefined) continue;
    sets.push(`${column} = ?`);
    params.push(changes[field]);
  }
  return { sql: sets.join(', '), params };
}

/** A PostgreSQL array literal of integers, for `?::int[]` (`= any(?::int[])`: one round trip for any number of ids). */
export function intArray(values: readonly number[]): string {
  return `{${values.map((v) => Math.trunc(v)).join(',')}}`;
}

/** A PostgreSQL array literal of integers or nulls, for `?::int[]` (unnest keeps the nulls in their places). */
export function nullableIntArray(values: readonly (number | null)[]): string {
  return `{${values.map((v) => (v === null ? 'NULL' : Math.trunc(v))).join(',')}}`;
}

/**
 * A PostgreSQL array literal of ids as the database gave them (bigint digits, UUIDs), for
 * `?::bigint[]` and `?::uuid[]`: such ids need no quoting.
 */
export function idArray(values: readonly string[]): string {
  return `{${values.join(',')}}`;
}

/** A PostgreSQL array literal of strings, for `?::text[]`. */
export function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

/** LIKE pattern text with its wildcards escaped (PostgreSQL's default escape is the backslash). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
