/**
 * The createApproval part of bench/approvals.bench.ts: rounds of createApproval with one asset from
 * the asset server process, each against its floor in the same round, what any correct
 * createApproval must at least do with the bytes: a download through an OutboundGuard of its own
 * (URL vetted, address pinned, time and size bounded), streamed through sha256 into a file in the
 * storage directory, written to its end. No database, no task. For continuity with earlier results
 * a separate pass after the rounds times a bare undici GET hashed in memory (no guard, no file).
 *
 * Each round fetches a new path, so the bytes differ (bench/servers/asset-server.ts) and Shelf
 * stores a new object every round. Floor and Shelf take turns going first.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import type { Core } from '../../src/core/core.ts';
import type { Ctx } from '../../src/core/platform/ctx.ts';
import { OutboundGuard } from '../../src/core/platform/outbound/outbound-guard.ts';

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

/** The floor's file writes: the same write buffer Shelf's download uses, so both write alike. */
const WRITE_BUFFER = 4 * 1024 * 1024;

/** The floor: one guarded download through sha256 into `path`, resolved once the file is written and closed. */
async function guardedDownloadToFile(guard: OutboundGuard, url: string, path: string, limits: { timeoutMs: number; maxBytes: number }): Promise<string> {
  const file = createWriteStream(path, { highWaterMark: WRITE_BUFFER });
  const hash = createHash('sha256');
  try {
    await guard.download(url, {
      ...limits,
      sink: (chunk) => {
        hash.update(chunk);
        if (!file.write(chunk)) return new Promise<void>((resolve) => file.once('drain', () => resolve()));
      },
    });
    await new Promise<void>((resolve, reject) => file.end((e?: Error | null) => (e ? reject(e) : resolve())));
    return hash.digest('hex');
  } catch (e) {
    file.destroy();
    throw e;
  }
}

async function inMemory(agent: Agent, url: string): Promise<void> {
  const res = await request(url, { dispatcher: agent });
  const hash = createHash('sha256');
  for await (const chunk of res.body) hash.update(chunk as Buffer);
  hash.digest('hex');
}

export async function createApprovalRounds(
  say: (line: string) => void,
  core: Core,
  ctx: Ctx,
  options: {
    templateId: string;
    createdBy: string;
    assetHost: string;
    storageDir: string;
    rounds: number;
    warmup: number;
    limits: { timeoutMs: number; maxBytes: number };
    load: () => string;
  },
): Promise<void> {
  const guard = new OutboundGuard({ allowHosts: [options.assetHost] });
  const agent = new Agent();
  const floor: number[] = [];
  const shelf: number[] = [];
  const memory: number[] = [];
  const asset = (what: string, i: number) => `http://${options.assetHost}/${what}-${i}`;
  const timed = async (work: () => Promise<unknown>) => {
    const t = performance.now();
    await work();
    return performance.now() - t;
  };
  await mkdir(options.storageDir, { recursive: true });
  say(`createApproval rounds: start, load ${options.load()}`);
  for (let i = 0; i < options.rounds + options.warmup; i++) {
    const floorFile = join(options.storageDir, `floor-${randomUUID()}`);
    const runFloor = () => timed(() => guardedDownloadToFile(guard, asset('floor', i), floorFile, options.limits));
    const runShelf = () =>
      timed(() =>
        core.approvals.tasks.create(ctx, {
          templateId: options.templateId,
          createdBy: options.createdBy,
          assets: [{ name: 'big.bin', url: asset('shelf', i) }],
        }),
      );
    let floorMs: number;
    let shelfMs: number;
    if (i % 2 === 0) {
      floorMs = await runFloor();
      shelfMs = await runShelf();
    } else {
      shelfMs = await runShelf();
      floorMs = await runFloor();
    }
    await rm(floorFile, { force: true });
    if (i >= options.warmup) {
      floor.push(floorMs);
      shelf.push(shelfMs);
    }
  }
  // apart from the paired rounds: its 10 MB of garbage per round would be collected in their windows
  for (let i = 0; i < options.rounds + options.warmup; i++) {
    const memoryMs = await timed(() => inMemory(agent, asset('memory', i)));
    if (i >= options.warmup) memory.push(memoryMs);
  }
  await guard.close();
  await agent.close();
  const ms = (xs: number[]) => `median ${pct(xs, 50).toFixed(0)} ms, p95 ${pct(xs, 95).toFixed(0)} ms`;
  say(
    `createApproval, one 10 MB asset, ${options.rounds} rounds: ${ms(shelf)}; floor (guarded download through sha256 to a file): ${ms(floor)}; ratio p95 ${(pct(shelf, 95) / pct(floor, 95)).toFixed(2)} (target <= 1.5), median ${(pct(shelf, 50) / pct(floor, 50)).toFixed(2)}`,
  );
  say(`createApproval: bare undici GET hashed in memory (no guard, no file): ${ms(memory)}; load ${options.load()}`);
}
