import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { databaseUrlFor, redisUrl } from '../support/databases.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { SPAWNING_TEST_TIMEOUT_MS } from '../support/wait.ts';

/*
 * docs/operations.md "Memory": no answer may take the process down, whatever a team stored. The
 * service runs as a process of its own with a small heap (176 MB of old space: about 105 MB of it is the idle service; an answer budget
 * of 16 MB), over data at the documented limits scaled down to seconds: templates of about 1 MB
 * each (select fields of many long options) and products with 14 textarea fields of 65,000
 * characters. Then the largest pages are asked for, 8 at once: every answer is whole (200) or the
 * documented 503 with Retry-After, and the process is alive after. Before answers were streamed
 * and budgeted, one such page ran the heap out ("JavaScript heap out of memory").
 */

vi.setConfig({ testTimeout: SPAWNING_TEST_TIMEOUT_MS * 2 });

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TEMPLATES = 20;
const PRODUCTS = 20;

let env: TestEnv;
let manager: GivenKey;
let viewer: GivenKey;
let shelf: { child: ChildProcess; output: () => string; exited: Promise<number | null> };
let base: string;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A template definition of about 1 MB: 197 select fields of 25 options with long values and labels (valid, under the 1 MiB body limit). */
function maximalTemplate(n: number): Record<string, unknown> {
  const fields = Array.from({ length: 197 }, (_, i) => ({
    key: `f${i}`,
    name: `Field ${i}`,
    type: 'select',
    config: {
      options: Array.from({ length: 25 }, (_, j) => ({ value: `value-${i}-${j}-${'x'.repeat(80)}`, label: `Label ${j} ${'y'.repeat(70)}`, sortOrder: j })),
    },
  }));
  return { name: `Big ${n}`, groups: [{ name: 'Maximal', fields }] };
}

beforeAll(async () => {
  env = await createTestEnv();
  const g = given(env);
  const team = await g.team();
  manager = await g.key(team, 'manage');
  viewer = await g.key(team, 'view_only');
  const ctx = await g.ctx(manager);
  for (let i = 0; i < TEMPLATES; i++) await env.core.catalogue.templates.create(ctx, maximalTemplate(i));
  const textareas = await env.core.catalogue.templates.create(ctx, {
    name: 'Long texts',
    groups: [{ name: 'Texts', fields: Array.from({ length: 14 }, (_, i) => ({ key: `t${i}`, name: `Text ${i}`, type: 'textarea' })) }],
  });
  const ids: Record<string, string> = {};
  for (const group of textareas.body.groups) for (const field of group.fields) ids[field.key] = field.id;
  for (let i = 0; i < PRODUCTS; i++) {
    const templateFields = Object.fromEntries(Array.from({ length: 14 }, (_, f) => [ids[`t${f}`]!, `${i}-${f} ${'z'.repeat(65_000)}`]));
    const created = await env.core.catalogue.products.create(ctx, { name: `Long ${i}`, templateId: textareas.body.id, templateFields });
    await env.core.catalogue.products.publish(ctx, created.body.id);
  }
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--max-semi-space-size=16', '--max-old-space-size=176', 'src/main.mjs'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ROLE: 'api',
      PORT: String(port),
      DATABASE_URL: databaseUrlFor(env.databaseName),
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: `mem-${env.databaseName}`,
      ANSWER_MEMORY_BUDGET_MB: '16',
      GRAPHQL_MAX_RESPONSE_MB: '8',
      LOG_LEVEL: 'error',
    },
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  shelf = { child, output: () => output, exited };
  // expect.poll belongs to tests: the hook waits for the first answer itself (its timeout catches a hang)
  while ((await fetch(`${base}/healthz`).catch(() => null)) === null) {
    if (shelf.child.exitCode !== null) throw new Error(`the service exited: ${shelf.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, SPAWNING_TEST_TIMEOUT_MS * 2);

afterAll(async () => {
  shelf?.child.kill('SIGTERM');
  await shelf?.exited;
  await env?.close();
});

/** `count` requests at once; each answer's status and whether its body parsed as JSON. */
async function atOnce(count: number, request: () => Promise<Response>): Promise<Array<{ status: number; body: any; retryAfter: string | null }>> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const res = await request();
      const text = await res.text();
      return { status: res.status, body: JSON.parse(text), retryAfter: res.headers.get('retry-after') };
    }),
  );
}

function expectWholeOrRefused(answers: Array<{ status: number; body: any; retryAfter: string | null }>, whole: (body: any) => void): void {
  for (const answer of answers) {
    expect([200, 503], shelf.output()).toContain(answer.status);
    if (answer.status === 200) whole(answer.body);
    else expect(answer.retryAfter).toMatch(/^\d+$/);
  }
  expect(answers.some((a) => a.status === 200)).toBe(true);
}

async function expectAlive(): Promise<void> {
  const res = await fetch(`${base}/healthz`);
  expect(res.status, shelf.output()).toBe(200);
  expect(shelf.child.exitCode).toBeNull();
}

describe('no answer takes the process down (a 176 MB heap, a 16 MB answer budget)', () => {
  it('8 concurrent GET /v1/product-info-templates?pageSize=100 over 20 templates of 1 MB each: whole pages or 503 with Retry-After, and the process lives', async () => {
    const answers = await atOnce(8, () => fetch(`${base}/v1/product-info-templates?pageSize=100`, { headers: { authorization: `Bearer ${viewer.key}` } }));
    expectWholeOrRefused(answers, (body) => {
      expect(body.data).toHaveLength(TEMPLATES + 1);
      expect(body.pagination).toEqual({ page: 1, pageSize: 100, totalCount: TEMPLATES + 1, totalPages: 1 });
    });
    await expectAlive();
  });

  it('8 concurrent GET /v1/products?pageSize=100 by a view_only key over 20 products of 0.9 MB each: whole pages or 503, and the process lives', async () => {
    const answers = await atOnce(8, () => fetch(`${base}/v1/products?pageSize=100`, { headers: { authorization: `Bearer ${viewer.key}` } }));
    expectWholeOrRefused(answers, (body) => {
      expect(body.data).toHaveLength(PRODUCTS);
      expect(Object.values(body.data[0].templateFields as Record<string, string>).every((v) => v.length > 65_000)).toBe(true);
    });
    await expectAlive();
  });

  it('8 concurrent sync pages (GET /v1/products?sync=true&pageSize=100): whole pages or 503, and the process lives', async () => {
    const answers = await atOnce(8, () => fetch(`${base}/v1/products?sync=true&pageSize=100`, { headers: { authorization: `Bearer ${viewer.key}` } }));
    expectWholeOrRefused(answers, (body) => {
      // the sync window ends 30 s before the first request: products written just now are not in it yet
      expect(body.pagination).toMatchObject({ pageSize: 100 });
    });
    await expectAlive();
  });

  it('GraphQL templates(pageSize: 12) with groups, fields and configs (11 MB) past GRAPHQL_MAX_RESPONSE_MB (8) is refused with response_too_large, 8 at once, and the process lives', async () => {
    const query = '{ templates(pageSize: 12) { items { id groups { fields { key config } } } } }';
    const answers = await atOnce(8, () =>
      fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${viewer.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      }),
    );
    for (const answer of answers) {
      expect([200, 503]).toContain(answer.status);
      expect(answer.body.errors[0].extensions.code).toMatch(/^(response_too_large|service_unavailable)$/);
    }
    await expectAlive();
  });

  it('GraphQL products(pageSize: 100) with templateFields past the limit is refused with response_too_large, and a smaller page is answered', async () => {
    const ask = (pageSize: number) =>
      fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${viewer.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ products(pageSize: ${pageSize}) { items { id templateFields } } }` }),
      }).then((r) => r.json());
    const large = await ask(100);
    expect(large.errors[0].extensions.code).toBe('response_too_large');
    const small = await ask(2);
    expect(small.errors).toBeUndefined();
    expect(small.data.products.items).toHaveLength(2);
    await expectAlive();
  });
});
