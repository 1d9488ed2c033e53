import type { TeamScope } from '../../platform/ctx.ts';
import { tagFileCounts } from './narrow-tables.queries.ts';

/**
 * How many live files carry each tag, per team and tag, counted at most once per `maxAgeMs`: a
 * search with an AND of tags walks the postings of its rarest tag (narrow-tables.queries.ts tagsOnlyPage,
 * tagsWalkWithFilesPage). Only the
 * speed of a search depends on these counts, never its results, so unlike the memo of totals they
 * may lag the library a little: counting the postings of a tag carried by 200,000 of 1,000,000
 * files takes about 30 ms, too much to repeat after every change of a busy library.
 */
export class TagFileCounts {
  private readonly entries = new Map<string, { files: number; countedAtMs: number }>();
  private readonly maxAgeMs: number;
  private readonly capacity: number;
  private readonly now: () => number;
  /** Tags counted so far (tests). */
  counted = 0;

  constructor(options: { maxAgeMs?: number; capacity?: number; now?: () => number } = {}) {
    this.maxAgeMs = options.maxAgeMs ?? 60_000;
    this.capacity = options.capacity ?? 50_000;
    this.now = options.now ?? Date.now;
  }

  /** Of `tagIds` (at least one), the one the fewest live files of the team carry; the smallest id among equals. */
  async rarest(ctx: TeamScope, tagIds: readonly number[]): Promise<number> {
    if (tagIds.length === 1) return tagIds[0]!;
    const counts = await this.countsOf(ctx, tagIds);
    let best = tagIds[0]!;
    for (const id of tagIds) {
      const files = counts.get(id)!;
      const bestFiles = counts.get(best)!;
      if (files < bestFiles || (files === bestFiles && id < best)) best = id;
    }
    return best;
  }

  /** How many live files of the team carry each of `tagIds`, counting those not counted within maxAgeMs. */
  async countsOf(ctx: TeamScope, tagIds: readonly number[]): Promise<Map<number, number>> {
    const now = this.now();
    const counts = new Map<number, number>();
    const stale: number[] = [];
    for (const id of tagIds) {
      const known = this.entries.get(`${ctx.teamId}|${id}`);
      if (known && now - known.countedAtMs < this.maxAgeMs) counts.set(id, known.files);
      else stale.push(id);
    }
    if (stale.length > 0) {
      const rows = await tagFileCounts(ctx, stale);
      this.counted += rows.length;
      for (const row of rows) {
        counts.set(row.tagId, row.files);
        this.keep(`${ctx.teamId}|${row.tagId}`, { files: row.files, countedAtMs: now });
      }
    }
    return counts;
  }

  private keep(key: string, entry: { files: number; countedAtMs: number }): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    // the oldest insertion first: entries are refreshed at most once per maxAgeMs, so this is about LRU
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
