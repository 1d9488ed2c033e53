import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { AnswerChecker } from '../support/fuzz/check.ts';
import { MUTATIONS } from '../support/fuzz/mutations.ts';
import { operationsOf, toWire, validDraft } from '../support/fuzz/operations.ts';
import { type FuzzPeer, startFuzzPeer } from '../support/fuzz/peer.ts';
import { Random } from '../support/fuzz/random.ts';
import { exchange } from '../support/fuzz/raw-http.ts';
import { describeClass, type FuzzReport, type FuzzTarget, failureClasses, fetchDocument, restCases, runFuzz, showExchange } from '../support/fuzz/run.ts';
import { type FuzzWorld, seedFuzzWorld } from '../support/fuzz/world.ts';
import { tempDir } from '../support/media-files.ts';

/**
 * A seeded fuzz run over every operation of /v1/openapi.json (/open and /approval included) and
 * over /graphql, through a real socket. FUZZ_SEED picks the run (printed), FUZZ_REQUESTS and
 * FUZZ_GRAPHQL its size, FUZZ_ONLY=rest:<n> or graphql:<n> replays one case. The longer run is
 * `npm run -s bench:fuzz`.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261201);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 400);
const GRAPHQL = Number(process.env.FUZZ_GRAPHQL ?? 80);
const ONLY = process.env.FUZZ_ONLY;
const FILE = 'test/platform/fuzz.rest.test.ts';

const repro = (caseId: string) => `FUZZ_SEED=${SEED} FUZZ_ONLY=${caseId} npm test -- ${FILE}`;

let env: TestEnv;
let peer: FuzzPeer;
let dirs: Array<Awaited<ReturnType<typeof tempDir>>>;
let world: FuzzWorld;
let target: FuzzTarget;

beforeAll(async () => {
  peer = await startFuzzPeer();
  dirs = [await tempDir('fuzz-storage'), await tempDir('fuzz-inputs')];
  env = await createTestEnv({ STORAGE_DIR: dirs[0]!.path, OUTBOUND_ALLOW_HOSTS: peer.hostPort, APPROVAL_DOWNLOAD_TIMEOUT_MS: '2000' });
  await env.app.listen({ host: '127.0.0.1', port: 0 });
  target = { host: '127.0.0.1', port: (env.app.server.address() as AddressInfo).port };
  world = await seedFuzzWorld(env, dirs[1]!.path, peer.url);
  console.log(`fuzz seed ${SEED} (FUZZ_SEED=<n> for another run, FUZZ_ONLY=<case> to replay one)`);
});
afterAll(async () => {
  await env?.close();
  await peer?.close();
  for (const dir of dirs ?? []) await dir.remove();
});

/** The failure message: the seed, then each failure class with one repro. */
function failuresOf(report: FuzzReport): string[] {
  const classes = failureClasses(report.failures);
  if (classes.length > 0) {
    console.log(
      `fuzz seed ${report.seed}: ${report.failures.length} failing answers of ${report.sent}, ${classes.length} classes\n${classes.map((c) => describeClass(c, repro)).join('\n')}`,
    );
  }
  return classes.map((c) => `${c.key} (repro: ${repro(c.first.case.id)})`);
}

const only = (kind: 'rest' | 'graphql') => (ONLY === undefined ? undefined : ONLY.startsWith(`${kind}:`) ? ONLY : 'none');
/** A replayed case is shown in full. */
const hooks =
  ONLY === undefined
    ? {}
    : { onAnswer: (c: Parameters<typeof showExchange>[0], answer: Parameters<typeof showExchange>[1]) => console.log(showExchange(c, answer)) };

describe('the fuzzer aims at every documented operation', () => {
  it('finds the /open and /approval operations in /v1/openapi.json and sends every operation a valid request first', async () => {
    const doc = await fetchDocument(target);
    const ops = operationsOf(doc);
    expect(ops.map((op) => `${op.method} ${op.path}`)).toEqual(
      expect.arrayContaining([
        'POST /open/search-assets',
        'POST /open/search-share',
        'POST /open/folder-subscribe',
        'GET /open/material-automation-event-types',
        'POST /open/material-automation-subscribe',
        'POST /approval',
      ]),
    );
    const first = restCases(doc, world, SEED, ops.length);
    expect(first.map((c) => c.operation)).toEqual(ops.map((op) => op.id));
    expect(new Set(first.map((c) => c.mutation))).toEqual(new Set(['valid']));
  });

  it('counts a 5xx, a missing X-Request-Id, an answer off its area envelope and one off its documented schema as failures', async () => {
    const doc = await fetchDocument(target);
    const checker = new AnswerChecker(doc);
    const getBrand = operationsOf(doc).find((op) => op.id === 'getBrand')!;
    const json = (status: number, body: unknown, headers: Record<string, string> = { 'x-request-id': 'r1', 'content-type': 'application/json' }) => ({
      status,
      headers,
      body: Buffer.from(JSON.stringify(body)),
    });
    const good = { success: false, data: null, code: 'not_found', message: 'gone', requestId: 'r1' };
    expect(checker.check('/v1/brands/1', getBrand, json(404, good))).toEqual([]);
    expect(checker.check('/v1/brands/1', getBrand, json(500, { ...good, code: 'internal_server_error' })).map((p) => p.kind)).toEqual(['server-error']);
    expect(checker.check('/v1/brands/1', getBrand, json(404, good, { 'content-type': 'application/json' })).map((p) => p.kind)).toEqual(['no-request-id']);
    expect(checker.check('/v1/brands/1', getBrand, json(404, { code: 'not_found', message: 'gone', result: null, traceId: 'r1' })).map((p) => p.kind)).toEqual([
      'envelope',
      'schema',
    ]);
    expect(
      checker.check('/v1/brands/1', getBrand, json(200, { success: true, data: { id: 'one' }, code: null, message: null, requestId: 'r1' })).map((p) => p.kind),
    ).toEqual(['schema']);
    expect(checker.check('/open/search-assets', null, json(400, good)).map((p) => p.kind)).toEqual(['envelope']);
    expect(checker.check('/v1/brands', null, { status: 400, headers: {}, body: Buffer.alloc(0) }).map((p) => p.kind)).toEqual(['no-request-id', 'not-json']);
  });
});

describe('maximal valid bodies', () => {
  it('createTemplate and createProduct at about 0.9 MB each are written (2xx), the product updated with as much again, then listed at the largest page size, without a 5xx', async () => {
    const doc = await fetchDocument(target);
    const checker = new AnswerChecker(doc);
    const maximal = MUTATIONS.find((m) => m.name === 'maximal-body')!;
    const rng = new Random(SEED);
    const written: Record<string, any> = {};
    for (const id of ['createTemplate', 'createProduct']) {
      const op = operationsOf(doc).find((o) => o.id === id)!;
      const draft = validDraft(doc, op, world, rng);
      const detail = maximal.apply(draft, { doc, world, rng, largestArray: 10 });
      const request = toWire(draft);
      expect(request.body!.length, detail).toBeGreaterThan(850_000);
      const answer = await exchange(target.host, target.port, request, 60_000);
      expect(answer.status, `${id}: ${answer.body.toString().slice(0, 300)}`).toBe(201);
      expect(checker.check(request.target.split('?')[0]!, op, answer)).toEqual([]);
      written[id] = JSON.parse(answer.body.toString()).data;
    }
    const templateFields = Object.fromEntries(world.longTexts.fieldIds.map((field, i) => [field, `${i} ${'u'.repeat(65_000)}`]));
    const update = await exchange(
      target.host,
      target.port,
      {
        method: 'PATCH',
        target: `/v1/products/${written.createProduct.id}`,
        headers: [
          ['authorization', `Bearer ${world.keys.manage}`],
          ['content-type', 'application/json'],
        ],
        body: Buffer.from(JSON.stringify({ templateFields })),
      },
      60_000,
    );
    expect(update.status, update.body.toString().slice(0, 300)).toBe(200);
    for (const path of ['/v1/product-info-templates?pageSize=100', '/v1/products?pageSize=100', '/v1/products?sync=true&pageSize=100']) {
      const answer = await exchange(
        target.host,
        target.port,
        { method: 'GET', target: path, headers: [['authorization', `Bearer ${world.keys.manage}`]] },
        60_000,
      );
      expect(answer.status, path).toBe(200);
      expect(JSON.parse(answer.body.toString()).success).toBe(true);
    }
  }, 240_000);
});

describe(`fuzzing with seed ${SEED}`, () => {
  it(`answers ${REQUESTS} seeded REST requests, valid and mutated, without a 5xx, each with X-Request-Id, in its area envelope and on its documented response schema`, async () => {
    const report = await runFuzz(target, world, { seed: SEED, requests: REQUESTS, graphql: 0, only: only('rest') }, hooks);
    expect(report.cases).toBe(ONLY === undefined ? REQUESTS : ONLY.startsWith('rest:') ? 1 : 0);
    expect(failuresOf(report), `fuzz seed ${SEED}`).toEqual([]);
  }, 240_000);

  it(`answers ${GRAPHQL} mutated GraphQL documents without a 5xx and with extensions.code on every error`, async () => {
    const report = await runFuzz(target, world, { seed: SEED, requests: 0, graphql: GRAPHQL, only: only('graphql') }, hooks);
    expect(report.cases).toBe(ONLY === undefined ? GRAPHQL : ONLY.startsWith('graphql:') ? 1 : 0);
    expect(failuresOf(report), `fuzz seed ${SEED}`).toEqual([]);
  }, 240_000);
});
