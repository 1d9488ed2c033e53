import { buildClientSchema, type GraphQLSchema, getIntrospectionQuery } from 'graphql';
import { AnswerChecker, type Problem } from './check.ts';
import { GRAPHQL_MUTATIONS, graphqlCase, graphqlProblems } from './graphql-cases.ts';
import { MUTATIONS, type Mutation } from './mutations.ts';
import { type OpenApiDocument, type Operation, operationsOf, toWire, validDraft } from './operations.ts';
import { Random } from './random.ts';
import { exchange, type WireRequest, type WireResponse } from './raw-http.ts';
import type { FuzzWorld } from './world.ts';

/** Where the server listens. */
export interface FuzzTarget {
  host: string;
  port: number;
}

export interface FuzzPlan {
  seed: number;
  /** REST requests (at least one valid request per documented operation comes first). */
  requests: number;
  graphql: number;
  /** Only this case (`rest:57`, `graphql:3`): a failure's repro. */
  only?: string;
  /** Requests in flight at once; 1 keeps a run reproducible case by case. */
  concurrency?: number;
  /** The longest array a case sends (default 10,001; the bench sends 100,000). */
  largestArray?: number;
}

/** One case, ready to send. */
export interface FuzzCase {
  id: string;
  operation: string;
  mutation: string;
  detail: string;
  request: WireRequest;
  /** Sent this many times at once; each answer is judged. */
  copies: number;
  /** The documented operation the request still is (same method and route), for the schema check. */
  op: Operation | null;
}

export interface Failure {
  case: FuzzCase;
  status: number;
  problems: Problem[];
}

export interface FuzzReport {
  seed: number;
  /** Cases sent, and requests (a case may be sent several times at once). */
  cases: number;
  sent: number;
  byStatus: Record<string, number>;
  failures: Failure[];
  operations: string[];
  /** The five cases that took longest, slowest first. */
  slowest: Array<{ case: FuzzCase; ms: number; status: number }>;
  /** Every case's time in ms by operation (and mutation: `valid` and `maximal-body` cases are the writes that should succeed). */
  times: Record<string, number[]>;
}

/** The OpenAPI document the running app serves. */
export async function fetchDocument(target: FuzzTarget): Promise<OpenApiDocument> {
  const answer = await exchange(target.host, target.port, { method: 'GET', target: '/v1/openapi.json', headers: [] });
  if (answer.status !== 200) throw new Error(`GET /v1/openapi.json answered ${answer.status}`);
  return JSON.parse(answer.body.toString('utf8')) as OpenApiDocument;
}

/** The GraphQL schema the running app introspects. */
export async function fetchGraphqlSchema(target: FuzzTarget, key: string): Promise<GraphQLSchema> {
  const answer = await exchange(target.host, target.port, {
    method: 'POST',
    target: '/graphql',
    headers: [
      ['Content-Type', 'application/json'],
      ['Authorization', `Bearer ${key}`],
    ],
    body: Buffer.from(JSON.stringify({ query: getIntrospectionQuery() })),
  });
  const body = JSON.parse(answer.body.toString('utf8'));
  if (!body.data) throw new Error(`introspection failed: ${answer.body.toString('utf8').slice(0, 200)}`);
  return buildClientSchema(body.data);
}

/**
 * The REST cases of a seed: first one valid request per operation, then the mutations in turn (a
 * seeded order), each on the next of the operations it applies to (also in a seeded order), so a
 * few hundred cases put every mutation on many operations. Case n draws from its own generator,
 * so it is the same whichever cases run before it.
 */
export function restCases(doc: OpenApiDocument, world: FuzzWorld, seed: number, count: number, largestArray = 10_001): FuzzCase[] {
  const ops = operationsOf(doc);
  const base = new Random(seed);
  const rounds = base.shuffle(MUTATIONS).map((mutation) => ({ mutation, ops: base.shuffle(ops.filter((op) => mutation.applies(op, doc))) }));
  const schedule: Array<readonly [Operation, Mutation]> = ops.map((op) => [op, MUTATIONS[0]!] as const);
  for (let round = 0; schedule.length < count; round++) {
    for (const { mutation, ops: targets } of rounds) if (targets.length > 0) schedule.push([targets[round % targets.length]!, mutation]);
  }
  const byRoute = new Map(ops.map((op) => [`${op.method} ${op.path}`, op]));
  return schedule.slice(0, count).map(([op, mutation], n) => {
    const rng = base.fork(n);
    const draft = validDraft(doc, op, world, rng);
    const detail = mutation.apply(draft, { doc, world, rng, largestArray });
    return {
      id: `rest:${n}`,
      operation: op.id,
      mutation: mutation.name,
      detail,
      request: toWire(draft),
      copies: draft.copies ?? 1,
      op: byRoute.get(`${draft.method} ${op.path}`) ?? null,
    };
  });
}

/** The GraphQL cases of a seed: every mutation in turn, in a seeded order. */
export function graphqlCases(schema: GraphQLSchema, world: FuzzWorld, seed: number, count: number): FuzzCase[] {
  const base = new Random(seed ^ 0x6a09e667);
  const names = base.shuffle(Object.keys(GRAPHQL_MUTATIONS));
  return Array.from({ length: count }, (_, n) => {
    const made = graphqlCase(schema, world, base.fork(n), names[n % names.length]!);
    return { id: `graphql:${n}`, operation: made.field, mutation: made.mutation, detail: made.detail, request: made.request, copies: 1, op: null };
  });
}

/** How long the server takes to answer GET /healthz again (given up after 5 minutes). */
async function recovery(target: FuzzTarget): Promise<string> {
  const started = performance.now();
  while (performance.now() - started < 300_000) {
    const answer = await exchange(target.host, target.port, { method: 'GET', target: '/healthz', headers: [] }, 5_000);
    if (answer.status === 200) return `${((performance.now() - started) / 1000).toFixed(1)} s later`;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return 'never (5 minutes)';
}

function judge(checker: AnswerChecker, c: FuzzCase, answer: WireResponse): Problem[] {
  if (c.id.startsWith('graphql:')) return graphqlProblems(answer);
  return checker.check(c.request.target.split('?')[0]!, c.op, answer);
}

/** Sends the plan's cases and judges every answer. */
export async function runFuzz(
  target: FuzzTarget,
  world: FuzzWorld,
  plan: FuzzPlan,
  hooks: { onAnswer?: (c: FuzzCase, answer: WireResponse, problems: Problem[]) => void } = {},
): Promise<FuzzReport> {
  const doc = await fetchDocument(target);
  const checker = new AnswerChecker(doc);
  const schema = plan.graphql > 0 || plan.only?.startsWith('graphql:') ? await fetchGraphqlSchema(target, world.keys.manage) : null;
  let cases = [...restCases(doc, world, plan.seed, plan.requests, plan.largestArray), ...(schema ? graphqlCases(schema, world, plan.seed, plan.graphql) : [])];
  if (plan.only) {
    const [kind, n] = plan.only.split(':');
    if (kind === 'rest') cases = restCases(doc, world, plan.seed, Number(n) + 1, plan.largestArray).slice(-1);
    else if (kind === 'graphql' && schema) cases = graphqlCases(schema, world, plan.seed, Number(n) + 1).slice(-1);
    else cases = [];
  }
  const report: FuzzReport = {
    seed: plan.seed,
    cases: cases.length,
    sent: 0,
    byStatus: {},
    failures: [],
    operations: operationsOf(doc).map((op) => op.id),
    slowest: [],
    times: {},
  };
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      const started = performance.now();
      const answers = await Promise.all(Array.from({ length: c.copies }, () => exchange(target.host, target.port, c.request, 20_000)));
      const ms = performance.now() - started;
      report.slowest = [...report.slowest, { case: c, ms, status: answers[0]!.status }].sort((a, b) => b.ms - a.ms).slice(0, 5);
      const timeKey = `${c.operation} ${c.mutation === 'valid' || c.mutation === 'maximal-body' ? c.mutation : 'mutated'}`;
      (report.times[timeKey] ??= []).push(ms);
      for (const answer of answers) {
        const problems = judge(checker, c, answer);
        report.sent++;
        report.byStatus[String(answer.status)] = (report.byStatus[String(answer.status)] ?? 0) + 1;
        if (problems.length > 0) report.failures.push({ case: c, status: answer.status, problems });
        hooks.onAnswer?.(c, answer, problems);
      }
      // a server still busy with this case would fail the next ones too: they wait until it answers again
      const silent = report.failures.find((f) => f.case === c && f.status === 0);
      if (silent) silent.problems[0]!.message += `; the server answered /healthz again ${await recovery(target)}`;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, plan.concurrency ?? 1) }, worker));
  return report;
}

/** A case and its answer in full, for a replayed case. */
export function showExchange(c: FuzzCase, answer: WireResponse): string {
  const body = (b: Buffer | undefined) =>
    b ? JSON.stringify(b.toString('utf8').slice(0, 600)) + (b.length > 600 ? ` ... (${b.length} bytes)` : '') : '(none)';
  return [
    `case ${c.id}: ${c.operation} ${c.mutation} (${c.detail})`,
    `> ${c.request.method} ${c.request.target.slice(0, 300)}`,
    ...c.request.headers.map(([k, v]) => `> ${k}: ${JSON.stringify(v.slice(0, 200))}`),
    `> body ${body(c.request.body)}`,
    `< ${answer.status}${answer.error ? ` (${answer.error})` : ''}`,
    ...Object.entries(answer.headers).map(([k, v]) => `< ${k}: ${v}`),
    `< body ${body(answer.body)}`,
  ].join('\n');
}

/** Failures grouped by what failed: status, operation, mutation and problem kinds; the first case of each class stands for it. */
export function failureClasses(failures: Failure[]): Array<{ key: string; count: number; first: Failure }> {
  const classes = new Map<string, { key: string; count: number; first: Failure }>();
  for (const f of failures) {
    const key = `${f.status} ${f.case.operation} ${f.case.mutation} [${[...new Set(f.problems.map((p) => p.kind))].join(',')}]`;
    const known = classes.get(key);
    if (known) known.count++;
    else classes.set(key, { key, count: 1, first: f });
  }
  return [...classes.values()];
}

/** One failure class on a few lines: what was sent, what came back, and how to send it again. */
export function describeClass(cls: { key: string; count: number; first: Failure }, repro: (caseId: string) => string): string {
  const { case: c, problems } = cls.first;
  const target = c.request.target.length > 100 ? `${c.request.target.slice(0, 100)}...` : c.request.target;
  return [
    `${cls.key} x${cls.count}`,
    `  sent: ${c.request.method} ${target} (${c.mutation}: ${c.detail})`,
    `  got:  ${problems.map((p) => p.message).join('; ')}`,
    `  repro: ${repro(c.id)}`,
  ].join('\n');
}
