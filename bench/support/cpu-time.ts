import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports process CPU in clock ticks of 10 ms (USER_HZ is 100 on every common kernel). */
const TICK_MS = 10;

/** User plus system CPU of a process so far, in ms (/proc/<pid>/stat fields 14 and 15), or 0 when it is gone. */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces; the fields after its closing parenthesis are plain
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * CPU of every PostgreSQL process so far, in ms (backends come and go; those alive at both reads
 * count); with `database`, only the backends connected to it (their title names it), so other
 * databases' work on a shared server is left out.
 */
function postgresCpu(database?: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      if (database && !readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(` ${database} `)) continue;
    } catch {
      continue;
    }
    out.set(Number(entry), processCpuMs(Number(entry)));
  }
  return out;
}

/** CPU spent between `start()` and `stop()` by a server process, PostgreSQL, and this process (the load generator). */
export function cpuMeter(serverPid: number, database?: string) {
  const server0 = processCpuMs(serverPid);
  const pg0 = postgresCpu(database);
  const self0 = process.cpuUsage();
  return {
    stop(): { serverMs: number; postgresMs: number; generatorMs: number } {
      const self = process.cpuUsage(self0);
      let postgresMs = 0;
      for (const [pid, ms] of postgresCpu(database)) postgresMs += ms - (pg0.get(pid) ?? 0);
      return { serverMs: processCpuMs(serverPid) - server0, postgresMs, generatorMs: (self.user + self.system) / 1000 };
    },
  };
}

/** A process's resident memory now, in MB (/proc/<pid>/status VmRSS); NaN when it is gone. */
export function processRssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024;
  } catch {
    return Number.NaN;
  }
}
