import autocannon from 'autocannon';

/** One load run's figures: mean requests/s over the run, latency percentiles in ms, failures. */
export interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  failed: number;
}

/** Loads one URL with a fixed number of keep-alive connections for `seconds` (autocannon, in this process). */
export async function load(url: string, options: { connections: number; seconds: number; headers: Record<string, string> }): Promise<LoadFigures> {
  const result = await autocannon({ url, connections: options.connections, duration: options.seconds, headers: options.headers, timeout: 10 });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.errors + result.timeouts + result.non2xx,
  };
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
