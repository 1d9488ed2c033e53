import type { Redis } from 'ioredis';
import type { UnitOfWork } from '../platform/ctx.ts';
import { inTransaction } from '../platform/tx.ts';
import { anyUnpositioned, type LiveRow, lockPositions, positionRows, purgeLiveRows } from './live-events.queries.ts';

/** Rows one relay step positions at most. */
const BATCH = 1000;
/** Positions one purge call deletes at most. */
const PURGE_BATCH = 10_000;

/** What the relay publishes on a team's channel: the team's rows of one step, and the team's head before them. */
export interface LiveMessage {
  previous: number;
  rows: LiveRow[];
}

/** The Redis channel of a team's live rows. */
export function teamChannel(prefix: string, teamId: number): string {
  return `${prefix}:live:${teamId}`;
}

/**
 * The live relay (docs/graphql.md "Live updates"): every API process runs one. A step gives the
 * committed rows written since the last step their positions, under the counter row's lock, and
 * after commit publishes them on their teams' Redis channels. Positions are thus given in commit
 * order of the steps: a row that commits while a step runs gets a larger position in a later
 * step, so a reader who has seen position P can never later find a committed row below P (the
 * gap that a sequence's ids, taken before commit, would leave). Within one step rows keep their
 * id order, which for two changes of one product, file or task is their commit order: the second
 * writer waits for the first one's row lock before it writes its live row.
 */
export class LiveRelay {
  private readonly op: UnitOfWork;
  private readonly publisher: Redis;
  private readonly prefix: string;
  private readonly windowMinutes: number;
  private lastPurge = 0;

  constructor(options: { op: UnitOfWork; publisher: Redis; prefix: string; windowMinutes: number }) {
    this.op = options.op;
    this.publisher = options.publisher;
    this.prefix = options.prefix;
    this.windowMinutes = options.windowMinutes;
  }

  /** One step; returns how many rows it positioned (BATCH: more may wait). */
  async step(): Promise<number> {
    if (Date.now() - this.lastPurge > 60_000) {
      this.lastPurge = Date.now();
      // up to 100,000 rows a minute (1,600 changes/s) leave the window; more waits for the next minute
      for (let i = 0; i < 10 && (await purgeLiveRows(this.op, this.windowMinutes, PURGE_BATCH)) === PURGE_BATCH; i++);
    }
    if (!(await anyUnpositioned(this.op))) return 0;
    const { rows, previous } = await inTransaction(this.op, async (tx) => positionRows(tx, await lockPositions(tx), BATCH));
    await this.publish(rows, previous);
    return rows.length;
  }

  /**
   * Publishes after commit. A message lost here (the process dies, Redis is away) is found again
   * by the subscribers: each message names the team's head before it, and the hubs compare their
   * teams' heads with PostgreSQL's at every re-check.
   */
  private async publish(rows: LiveRow[], previous: Map<number, number>): Promise<void> {
    const byTeam = new Map<number, LiveRow[]>();
    for (const row of rows) byTeam.set(row.teamId, [...(byTeam.get(row.teamId) ?? []), row]);
    const pipeline = this.publisher.pipeline();
    for (const [teamId, teamRows] of byTeam) {
      const message: LiveMessage = { previous: previous.get(teamId) ?? 0, rows: teamRows };
      pipeline.publish(teamChannel(this.prefix, teamId), JSON.stringify(message));
    }
    await pipeline.exec();
  }
}
