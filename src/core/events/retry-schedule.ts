/**
 * Waits before each retry of a webhook delivery (docs/events.md "Delivery"): 5 s, 30 s, 2 min,
 * 10 min, 30 min, 1 h, 3 h, 6 h, 12 h, 24 h after the first attempt fails, about 47 hours in all.
 * `WEBHOOK_RETRY_SCHEDULE` replaces it (tests and benchmarks shorten it).
 */
export const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000];

/** A retry waits its scheduled time give or take a fifth, so receivers that failed together are not hit together again. */
export function retryDelayMs(schedule: readonly number[], failedAttempts: number, random = Math.random): number | null {
  const base = schedule[failedAttempts - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.8 + 0.4 * random()));
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Parses `5s,30s,2m,1h` (or plain milliseconds) into milliseconds; throws on anything else. */
export function parseRetrySchedule(text: string): number[] {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0 || parts.length > 50) throw new Error('must list 1 to 50 durations');
  return parts.map((part) => {
    const match = /^(\d+)(ms|s|m|h)?$/.exec(part);
    if (!match) throw new Error(`"${part}" is not a duration like 500ms, 5s, 2m or 1h`);
    return Number(match[1]) * UNIT_MS[match[2] ?? 'ms']!;
  });
}

/** Seconds or an HTTP date from a `Retry-After` header, as milliseconds from now (null when absent or unreadable). */
export function retryAfterMs(value: string | undefined, nowMs = Date.now()): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
