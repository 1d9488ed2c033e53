import { createHash } from 'node:crypto';
import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { objectKey } from '../../src/core/assets/imports/library-import.service.ts';
import { LocalDiskStorage } from '../../src/core/assets/storage/storage.ts';
import { StorageMaintenance } from '../../src/core/assets/storage/storage-maintenance.ts';
import { type CliResult, runCli, spawnCli } from '../support/cli.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenTeam, given } from '../support/given.ts';
import { tempDir, writeImage } from '../support/media-files.ts';
import { type TestBucket, testBucket } from '../support/object-store.ts';

/** `storage copy` and `storage check` (docs/cli.md, docs/operations.md "Object storage") between local disk and the RADOS Gateway. */
let env: TestEnv;
let bucket: TestBucket;
let local: Awaited<ReturnType<typeof tempDir>>;
let inputs: Awaited<ReturnType<typeof tempDir>>;
let team: GivenTeam;
const keys: string[] = [];
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  bucket = await testBucket();
  local = await tempDir('copy-local');
  inputs = await tempDir('copy-inputs');
  env = await createTestEnv({ STORAGE_DIR: local.path });
  const g = given(env);
  team = await g.team('Copy');
  for (const [i, colour] of ['#ff0000', '#00ff00', '#0000ff'].entries()) {
    const path = join(inputs.path, `p${i}.png`);
    const bytes = await writeImage(path, { width: 40 + i, height: 30, colour, format: 'png' });
    await g.libraryFile(team, { file: path });
    keys.push(objectKey(sha256(bytes)));
  }
  // the same bytes in another team: a second stored_objects row naming the same key
  await g.libraryFile(await g.team('Same bytes'), { file: join(inputs.path, 'p0.png') });
  // a category icon: referenced by its own table, not content-addressed
  await g.categoryIcon(team);
  keys.push(...(await env.orm.em.fork().execute<{ storage_key: string }[]>('select storage_key from category_icons')).map((r) => r.storage_key));
  keys.sort();
});
afterAll(async () => {
  await env?.close();
  await bucket?.remove();
  await local?.remove();
  await inputs?.remove();
});

/** Runs a command with this file's database, STORAGE_DIR and bucket (STORAGE_BACKEND=s3 unless `storageDir` says local). */
const shelf = (args: string[], storageDir = local.path): Promise<CliResult> =>
  runCli(args, { DATABASE_URL: env.config.databaseUrl, ...bucket.env('shelf'), STORAGE_DIR: storageDir });
const s3Keys = async () => (await bucket.keys()).filter((k) => k.startsWith('shelf/')).map((k) => k.slice('shelf/'.length));

describe('storage copy', () => {
  it('copies every referenced object from local disk to S3, verified, and prints what it did', async () => {
    const run = await shelf(['storage', 'copy', '--from', 'local', '--to', 's3']);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ objects: 4, copied: 4, skipped: 0, missingAtSource: [], failed: [], to: `s3://${bucket.name}/shelf/` });
    expect(run.json.bytes).toBe(run.json.copiedBytes);
    expect(await s3Keys()).toEqual(keys);
    const s3 = bucket.storage({ prefix: 'shelf' });
    for (const key of keys) expect(await s3.size(key)).toBe((await readFile(join(local.path, key))).length);
  });

  it('resumes: objects already copied are skipped, only the missing ones are copied', async () => {
    await bucket.storage({ prefix: 'shelf' }).remove(keys[0]!);
    const run = await shelf(['storage', 'copy', '--from', 'local', '--to', 's3']);
    expect(run.json).toMatchObject({ copied: 1, skipped: 3, failed: [] });
    expect(await s3Keys()).toEqual(keys);
  });

  it('refuses a copy whose bytes do not hash to the object SHA-256 and leaves nothing of it at the destination', async () => {
    const victim = keys.find((k) => k.startsWith('objects/'))!;
    const original = await readFile(join(local.path, victim));
    await bucket.storage({ prefix: 'shelf' }).remove(victim);
    // same size, other bytes: only the hash can tell
    await writeFile(join(local.path, victim), Buffer.alloc(original.length, 7));
    try {
      const run = await shelf(['storage', 'copy', '--from', 'local', '--to', 's3']);
      expect(run.json.failed).toEqual([{ key: victim, reason: expect.stringContaining(victim.split('/').pop()!) }]);
      expect(run.json.copied).toBe(0);
      expect(await s3Keys()).not.toContain(victim);
    } finally {
      await writeFile(join(local.path, victim), original);
    }
    expect((await shelf(['storage', 'copy', '--from', 'local', '--to', 's3'])).json).toMatchObject({ copied: 1, failed: [] });
  });

  it('copies back from S3 to an empty STORAGE_DIR, byte for byte', async () => {
    const fresh = await tempDir('copy-back');
    try {
      const run = await shelf(['storage', 'copy', '--from', 's3', '--to', 'local'], fresh.path);
      expect(run.json).toMatchObject({ objects: 4, copied: 4, failed: [], missingAtSource: [] });
      for (const key of keys) expect(await readFile(join(fresh.path, key))).toEqual(await readFile(join(local.path, key)));
    } finally {
      await fresh.remove();
    }
  });

  it('lists referenced objects the source lacks instead of failing the whole copy', async () => {
    const fresh = await tempDir('copy-missing');
    try {
      const run = await shelf(['storage', 'copy', '--from', 'local', '--to', 's3'], fresh.path);
      expect(run.json).toMatchObject({ copied: 0, skipped: 4, missingAtSource: [] });
      await bucket.storage({ prefix: 'shelf' }).remove(keys[1]!);
      const back = await shelf(['storage', 'copy', '--from', 's3', '--to', 'local'], fresh.path);
      expect(back.json.missingAtSource).toEqual([keys[1]]);
      expect(back.json.copied).toBe(3);
    } finally {
      await fresh.remove();
      await shelf(['storage', 'copy', '--from', 'local', '--to', 's3']);
    }
  });

  it('draws a progress bar on stderr while stdout stays one JSON object', async () => {
    await bucket.storage({ prefix: 'shelf' }).remove(keys[2]!);
    const run = await spawnCli(['storage', 'copy', '--from', 'local', '--to', 's3'], {
      DATABASE_URL: env.config.databaseUrl,
      ...bucket.env('shelf'),
      STORAGE_DIR: local.path,
    });
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ copied: 1, skipped: 3 });
    expect(run.stderr).toMatch(/copying local to s3 \[.*\] 4\/4 objects/);
  });

  it('refuses a wrong store name, the same store twice, or S3 without a bucket, copying nothing', async () => {
    const before = await s3Keys();
    const wrong = await shelf(['storage', 'copy', '--from', 'ftp', '--to', 's3']);
    expect([wrong.code, wrong.json.error.code, wrong.json.error.details[0].field]).toEqual([1, 'validation_failed', 'from']);
    const same = await shelf(['storage', 'copy', '--from', 's3', '--to', 's3']);
    expect([same.code, same.json.error.details[0].field]).toEqual([1, 'to']);
    const noBucket = await runCli(['storage', 'copy', '--from', 'local', '--to', 's3'], {
      DATABASE_URL: env.config.databaseUrl,
      STORAGE_DIR: local.path,
      S3_BUCKET: '',
    });
    expect([noBucket.code, noBucket.json.error.details[0].field]).toEqual([1, 'S3_BUCKET']);
    const missingFlag = await shelf(['storage', 'copy', '--from', 'local']);
    expect([missingFlag.code, missingFlag.json.error.code]).toEqual([1, 'validation_failed']);
    expect(await s3Keys()).toEqual(before);
  });
});

describe('storage check', () => {
  it('finds every referenced object present with its size in both stores', async () => {
    for (const store of ['local', 's3']) {
      const run = await shelf(['storage', 'check', '--store', store]);
      expect(run.json, store).toMatchObject({ referenced: 4, ok: 4, missing: [], wrongSize: [], unreferenced: [], recent: 0, removed: 0 });
    }
    // without --store: the configured backend (here s3)
    expect((await shelf(['storage', 'check'])).json.store).toBe(`s3://${bucket.name}/shelf/`);
  });

  it('lists missing and wrong-size objects, and unreferenced ones, keeping previews of stored content', async () => {
    const s3 = bucket.storage({ prefix: 'shelf' });
    const [gone, resized] = keys.filter((k) => k.startsWith('objects/'));
    await s3.remove(gone!);
    await s3.put(resized!, Buffer.from('short'));
    await s3.put('objects/zz/orphan', Buffer.from('nobody names me'));
    const sha = resized!.split('/').pop()!;
    await s3.put(`derived/preview-v1-webp-512/${sha.slice(0, 2)}/${sha}.webp`, Buffer.from('a cached preview'));
    const run = await shelf(['storage', 'check', '--store', 's3']);
    expect(run.json).toMatchObject({
      referenced: 4,
      ok: 2,
      missing: [{ key: gone, size: expect.any(Number) }],
      missingCount: 1,
      wrongSize: [{ key: resized, expected: expect.any(Number), actual: 5 }],
      wrongSizeCount: 1,
      // written just now: possibly an import about to commit, so only counted as recent
      unreferenced: [],
      recent: 1,
    });
    // --remove-unreferenced leaves a recent object alone
    expect((await shelf(['storage', 'check', '--store', 's3', '--remove-unreferenced'])).json.removed).toBe(0);
    expect(await s3.exists('objects/zz/orphan')).toBe(true);
    await s3.remove('objects/zz/orphan');
    await shelf(['storage', 'copy', '--from', 'local', '--to', 's3']);
    await s3.put(resized!, await readFile(join(local.path, resized!)));
  });

  it('removes unreferenced objects older than an hour with --remove-unreferenced, and nothing referenced', async () => {
    const store = new LocalDiskStorage(local.path);
    await store.put('objects/zz/old-orphan', Buffer.from('old'));
    await store.put('derived/image-v1/ab/abababababababababababababababababababababababababababababababab/w10.webp', Buffer.from('old derived'));
    const incoming = await store.receive();
    await incoming.write(Buffer.from('an abandoned reception'));
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    const listed: string[] = [];
    for await (const object of store.list()) listed.push(object.key);
    for (const key of listed.filter((k) => !keys.includes(k))) await utimes(join(local.path, key), twoHoursAgo, twoHoursAgo);
    const check = await shelf(['storage', 'check', '--store', 'local']);
    expect(check.json.unreferenced.map((o: { key: string }) => o.key)).toEqual([
      'derived/image-v1/ab/abababababababababababababababababababababababababababababababab/w10.webp',
      expect.stringMatching(/^incoming\/.+\.part$/),
      'objects/zz/old-orphan',
    ]);
    expect(check.json).toMatchObject({ ok: 4, unreferencedCount: 3, removed: 0 });
    const removal = await shelf(['storage', 'check', '--store', 'local', '--remove-unreferenced']);
    expect(removal.json.removed).toBe(3);
    expect((await shelf(['storage', 'check', '--store', 'local'])).json).toMatchObject({ ok: 4, unreferenced: [], missing: [] });
    await incoming.discard();
  });
});

describe('paging through the referenced keys', () => {
  /** Text whose SHA-256 starts with `digit`, so its key sorts where the test needs it. */
  function bytesStartingWith(digit: string): string {
    for (let i = 0; ; i++) if (sha256(Buffer.from(`paging ${i}`)).startsWith(digit)) return `paging ${i}`;
  }

  it('walks every table page by page, each key once, even when one table is ahead of another', async () => {
    // library keys objects/0..., objects/8... and a pending key objects/f...: with pages of one row
    // per table, the first page holds objects/0 and objects/f, and objects/8 must not be skipped
    const g = given(env);
    for (const digit of ['0', '8']) {
      const path = join(inputs.path, `paging-${digit}.txt`);
      await writeFile(path, bytesStartingWith(digit));
      await g.libraryFile(team, { file: path });
    }
    const pending = join(inputs.path, 'paging-f.txt');
    await writeFile(pending, bytesStartingWith('f'));
    await env.core.assets.pendingInbound.holdFile(env.core.operatorCtx(), { team: team.teamId, file: pending });
    const store = new LocalDiskStorage(local.path);
    for (const pageSize of [1, 2, 3, 1000]) {
      const report = await new StorageMaintenance({ pageSize }).check(env.core.operatorCtx(), store);
      expect(report, `page size ${pageSize}`).toMatchObject({ referenced: 7, ok: 7, missingCount: 0, wrongSizeCount: 0, unreferencedCount: 0 });
    }
  });
});
