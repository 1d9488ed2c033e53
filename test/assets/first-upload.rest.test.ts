import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { tempDir } from '../support/media-files.ts';

/**
 * docs/library.md "First upload in five minutes", followed block by block against a listening
 * server: the shell blocks run in bash (curl), the tus-js-client script runs in Node. The blocks
 * are read from the page's tagged code blocks (```sh first-upload:<step>), so the page cannot
 * drift from what works.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let blocks: Map<string, string>;
let env: TestEnv;
let key: GivenKey;
let url: string;
let files: Awaited<ReturnType<typeof tempDir>>;
let storage: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  const page = await readFile(new URL('../../docs/library.md', import.meta.url), 'utf8');
  blocks = new Map([...page.matchAll(/```(?:sh|js) first-upload:(\w+)\n([\s\S]*?)```/g)].map((m) => [m[1]!, m[2]!]));
  files = await tempDir('first-upload-files');
  storage = await tempDir('first-upload-storage');
  env = await createTestEnv({ STORAGE_DIR: storage.path });
  key = await given(env).key(await given(env).team('First upload'), 'editable');
  url = await env.app.listen({ port: 0, host: '127.0.0.1' });
  await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3366ff' } })
    .png()
    .toFile(join(files.path, 'photo.png'));
  await writeFile(join(files.path, 'video.mp4'), randomBytes(12 * 1024 * 1024));
});
afterAll(async () => {
  await env.close();
  await files.remove();
  await storage.remove();
});

function block(name: string): string {
  const text = blocks.get(name);
  expect(text, `docs/library.md has no block first-upload:${name}`).toBeDefined();
  return text!;
}

async function shell(name: string, extra: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', block(name)], {
    cwd: files.path,
    env: { ...process.env, SHELF_URL: url, SHELF_KEY: key.key, ...extra },
  });
  return stdout;
}

async function placed(fileId: number): Promise<Record<string, unknown>> {
  const [row] = await env.orm.em
    .fork()
    .execute<Record<string, unknown>[]>(
      `select f.name, f.mime_type, f.byte_size, (select path from library_folders where id = f.folder_id) as folder from library_files f where f.id = ?`,
      [fileId],
    );
  return row!;
}

describe('docs/library.md: first upload in five minutes', () => {
  it('uploads with curl -T, with tus-js-client in 5 MB chunks, reads the result, and uploads from GraphQL', async () => {
    // 1. one request
    const one = JSON.parse(await shell('curl'));
    expect(one).toMatchObject({ success: true, data: { status: 'completed', result: { fileId: expect.any(Number) } } });
    expect(await placed(one.data.result.fileId)).toMatchObject({ name: 'photo.png', mime_type: 'image/png' });

    // 2. tus-js-client, resumable, from Node
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', block('tus'), join(files.path, 'video.mp4')], {
      cwd: ROOT,
      env: { ...process.env, SHELF_URL: url, SHELF_KEY: key.key },
    });
    const uploadUrl = stdout.trim();
    expect(uploadUrl).toMatch(/\/v1\/uploads\/[0-9a-f-]{36}$/);

    // 3. what it became
    const status = JSON.parse(await shell('status', { UPLOAD_URL: uploadUrl }));
    expect(status.data).toMatchObject({ status: 'completed', offset: 12 * 1024 * 1024 });
    expect(await placed(status.data.result.fileId)).toMatchObject({ name: 'video.mp4', byte_size: String(12 * 1024 * 1024) });

    // 4. GraphQL multipart
    const gql = JSON.parse(await shell('graphql'));
    expect(gql.errors).toBeUndefined();
    expect(gql.data.uploadFile).toMatchObject({ status: 'completed', result: { fileId: expect.any(Number) } });
    // identical bytes: the photo of step 1 again, a second file on the same stored object
    expect(gql.data.uploadFile.result.fileId).not.toBe(one.data.result.fileId);
  });
});
