import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalWorld, createApprovalWorld } from '../support/approval-world.ts';
import { tempDir } from '../support/media-files.ts';
import { type TestBucket, testBucket } from '../support/object-store.ts';

/**
 * Approval assets on S3: downloads stream into the bucket as they arrive and are placed by a copy
 * inside it (no hard link there), resubmitted files are put, auto-import reads them back, and a
 * failed download leaves nothing, neither objects nor multipart parts. STORAGE_DIR stays empty.
 */
let world: ApprovalWorld;
let bucket: TestBucket;
let storageDir: Awaited<ReturnType<typeof tempDir>>;
let files: Awaited<ReturnType<typeof tempDir>>;
let m: ApprovalWorld['members'];
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const objectKeyOf = (bytes: Buffer | string) => `objects/${sha256(bytes).slice(0, 2)}/${sha256(bytes)}`;

beforeAll(async () => {
  bucket = await testBucket();
  storageDir = await tempDir('approval-s3-dir');
  files = await tempDir('approval-s3-files');
  world = await createApprovalWorld({ STORAGE_DIR: storageDir.path, ...bucket.env('shelf') });
  m = world.members;
  expect((await world.approval({ service: 'subscriptionChange', operation: 'ADD', callbackUrl: `${world.receiver.url}/approvals` })).body.code).toBe('0');
});
afterAll(async () => {
  await world?.close();
  await bucket?.remove();
  await storageDir?.remove();
  await files?.remove();
});

const stored = async () => (await bucket.keys()).filter((k) => k.startsWith('shelf/')).map((k) => k.slice('shelf/'.length));

async function template(autoImport: boolean): Promise<string> {
  return (
    await world.env.core.approvals.templates.create(
      { em: world.env.orm.em.fork(), teamId: world.team.teamId },
      {
        name: `S3 ${autoImport ? 'auto' : 'manual'} ${Math.random()}`,
        autoImportEnabled: autoImport,
        ...(autoImport ? { targetFolder: '/approved' } : {}),
        workflow: { nodes: [{ name: 'Review', signMode: 'or', approvers: [m.ann] }] },
      },
    )
  ).id;
}

describe('approval assets kept in an S3 bucket', () => {
  it('downloads the assets into the bucket under their content keys, with nothing left under incoming/ or on local disk', async () => {
    const paths = [`/bytes/s3-a-${Math.random()}`, `/bytes/s3-b-${Math.random()}`];
    const res = await world.approval({
      service: 'createApproval',
      templateId: await template(false),
      createdBy: String(m.sub),
      assets: paths.map((path, i) => ({ name: `${i}.png`, url: `${world.assets.url}${path}` })),
    });
    expect(res.body.code).toBe('0');
    const keys = await stored();
    for (const path of paths) expect(keys).toContain(objectKeyOf(`asset ${path}`));
    expect(keys.filter((k) => k.startsWith('incoming/'))).toEqual([]);
    expect(await bucket.openUploads()).toBe(0);
    expect(await readdir(storageDir.path)).toEqual([]);
  });

  it('a download over the size limit is refused and leaves nothing in the bucket', async () => {
    const before = await stored();
    const res = await world.approval({
      service: 'createApproval',
      templateId: await template(false),
      createdBy: String(m.sub),
      assets: [{ name: 'big.png', url: `${world.assets.url}/big-chunked` }],
    });
    expect(res.body.code).not.toBe('0');
    expect(JSON.stringify(res.body)).toContain('asset_too_large');
    expect(await stored()).toEqual(before);
    expect(await bucket.openUploads()).toBe(0);
  });

  it('auto-import of an approved asset places it in the library from the bucket, and a resubmitted file is put there', async () => {
    const path = `/bytes/s3-approved-${Math.random()}`;
    const res = await world.approval({
      service: 'createApproval',
      templateId: await template(true),
      createdBy: String(m.sub),
      assets: [{ name: 'approved.png', url: `${world.assets.url}${path}` }],
    });
    const taskId = res.body.result.taskId as string;
    await world.env.core.approvals.engine.decide(await world.as(m.ann), { taskId, decision: 'rejected' });
    const file = join(files.path, 'v2.png');
    await writeFile(file, `second version ${Math.random()}`);
    await world.env.core.approvals.tasks.resubmitFiles(await world.as(m.sub), { taskId, files: [file] });
    await world.env.core.approvals.engine.decide(await world.as(m.ann), { taskId, decision: 'approved' });
    const imported = await world.env.orm.em.fork().execute<{ storage_key: string }[]>(
      `select o.storage_key from library_files f join library_folders d on d.id = f.folder_id join stored_objects o on o.id = f.object_id
        where f.team_id = ? and d.name = 'approved' and f.deleted_at is null`,
      [world.team.teamId],
    );
    const secondVersion = await readFile(file);
    expect(imported).toEqual([{ storage_key: objectKeyOf(secondVersion) }]);
    expect(await stored()).toContain(objectKeyOf(secondVersion));
    expect(await readdir(storageDir.path)).toEqual([]);
  });
});
