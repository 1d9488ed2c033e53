/**
 * Preloaded into a benchmark's server process (`--import`): counts the process's own CPU time
 * (process.cpuUsage), the garbage collector's pauses (perf_hooks 'gc' entries) and the SQL
 * statements sent (calls of pg's Client.query, which every database access goes through), and
 * answers the parent's 'gc-stats' message with the totals so far. Nothing else changes in the server.
 */
import { createRequire } from 'node:module';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import type pgTypes from 'pg';

// the server's own pg (the script's node_modules: another checkout's under BENCH_COMPARE_DIR),
// whose CommonJS module the ESM entry re-exports, so patching its Client patches what the server uses
const pg = createRequire(process.argv[1]!)('pg') as typeof pgTypes;

/** What a server answers to 'gc-stats': totals since it started. */
export interface GcStats {
  type: 'gc-stats';
  /** ms the main thread spent in GC pauses. */
  gcMs: number;
  /** GC pauses so far. */
  gcCount: number;
  /** ms of user + system CPU of the whole process (every thread). */
  cpuMs: number;
  /** SQL statements sent to PostgreSQL. */
  statements: number;
  /** gcMs by kind of collection (minor: scavenges of the young generation; major: mark-compact). */
  gcMsByKind: Record<string, number>;
}

let statements = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pgTypes.Client, ...args: unknown[]) {
  statements++;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

/** The kinds of a 'gc' entry's detail (perf_hooks.constants.NODE_PERFORMANCE_GC_*). */
const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};
const byKind: Record<string, number> = {};
let gcMs = 0;
let gcCount = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcMs += entry.duration;
    gcCount++;
    const kind = KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? 'other';
    byKind[kind] = (byKind[kind] ?? 0) + entry.duration;
  }
}).observe({ entryTypes: ['gc'] });

process.on('message', (message) => {
  if (message !== 'gc-stats') return;
  const cpu = process.cpuUsage();
  process.send?.({ type: 'gc-stats', gcMs, gcCount, cpuMs: (cpu.user + cpu.system) / 1000, statements, gcMsByKind: { ...byKind } } satisfies GcStats);
});
