import { complexityFromQuery } from '@pothos/plugin-complexity';
import { getIntrospectionQuery, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/index.ts';
import { QueryMeasure } from '../../src/graphql/query-cost.ts';
import { QUERY_LIMITS, refusalOf } from '../../src/graphql/query-limits.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { type CountingApp, countingApp } from '../support/query-counter.ts';

let env: TestEnv;
let counting: CountingApp;
let viewer: GivenKey;
let rootId: number;

beforeAll(async () => {
  env = await createTestEnv();
  const g = given(env);
  const team = await g.team();
  const manager = await g.key(team, 'manage');
  viewer = await g.key(team, 'view_only');
  const brand = await g.brand(manager, { name: 'Six children' });
  const root = await g.category(manager, { brandId: brand.id, name: 'Root' });
  for (let i = 0; i < 6; i++) await g.category(manager, { brandId: brand.id, parentId: root.id, name: `Child ${i}` });
  rootId = root.id;
  counting = await countingApp(env);
});
afterAll(async () => {
  await counting.close();
  await env.close();
});

/** Sends a document through the SQL-counting app: a refusal before execution sends no statement, not even the key lookup. */
async function sendCounted(
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; statements: number; ms: number; requestId: string | undefined }> {
  counting.statements.length = 0;
  const started = performance.now();
  const res = await counting.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { authorization: `Bearer ${viewer.key}`, 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const ms = performance.now() - started;
  let parsed: unknown;
  try {
    parsed = res.json();
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, body: parsed, statements: counting.statements.length, ms, requestId: res.headers['x-request-id'] as string | undefined };
}

/** `children { parent { children { ... } } }`: each level of children lists the six siblings again. */
function childrenParentNest(levels: number): string {
  let inner = 'id name';
  for (let i = 0; i < levels; i++) inner = i === 0 ? `children { ${inner} }` : `children { parent { ${inner} } }`;
  return `query($id: Int!) { category(id: $id) { category { ${inner} } } }`;
}

/** Fields of field types of field types ...: introspection is counted exactly, by what its answer would hold. */
const introspectionNest = (levels: number): string =>
  levels === 0 ? 'name' : `fields { name type { name ofType { name ${introspectionNest(levels - 1)} } } }`;

const TEMPLATE_VERSIONS_BOMB = '{ templates(pageSize: 100) { items { versions(last: 100) { groups { fields { key name type config } } } } } }';

const fanOut = (levels: number) =>
  `query { ...F0 }\n${Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join('\n')}\nfragment F${levels} on Query { brands { items { id } } }`;

/** Every hostile document, the code it is refused with, and the measure the refusal names. */
const CORPUS: Array<{ name: string; body: unknown; code: string; status?: number }> = [
  {
    name: '7 levels of children -> parent -> children over 6 children (279,936 nodes)',
    body: { query: childrenParentNest(7), variables: { id: 0 } },
    code: 'query_too_deep',
  },
  {
    name: '4 levels of children -> parent -> children, within the depth limit',
    body: { query: childrenParentNest(4), variables: { id: 0 } },
    code: 'query_too_complex',
  },
  {
    name: '40 levels of folder parents',
    body: { query: `{ libraryFolder(id: 1) { ${'parent { '.repeat(40)}id${' }'.repeat(40)} } }` },
    code: 'query_too_deep',
  },
  { name: '1,000 aliases', body: { query: `{ ${Array.from({ length: 1000 }, (_, i) => `a${i}: __typename`).join(' ')} }` }, code: 'query_too_many_aliases' },
  {
    name: '5,000 aliases',
    body: { query: `{ ${Array.from({ length: 5000 }, (_, i) => `a${i}: brands { items { id } }`).join(' ')} }` },
    code: 'query_too_long',
  },
  {
    name: 'a fragment cycle',
    body: { query: 'query { ...A } fragment A on Query { ...B } fragment B on Query { brands { items { id } } ...A }' },
    code: 'validation_failed',
  },
  { name: 'fragment fan-out: 2^24 spreads of one fragment', body: { query: fanOut(24) }, code: 'query_too_complex' },
  {
    name: 'page arguments at their maximum, nested: 100 templates x 100 versions x 200 fields',
    body: { query: TEMPLATE_VERSIONS_BOMB },
    code: 'query_too_complex',
  },
  {
    name: 'page sizes from variables: 100 products with all their media fields',
    body: {
      query:
        'query($n: Int) { products(pageSize: $n) { items { images { id name previewUrl downloadUrl } relatedAssets { id name previewUrl downloadUrl } } } }',
      variables: { n: 100 },
    },
    code: 'query_too_complex',
  },
  { name: '60 directives', body: { query: `{ brands { items { ${'... @include(if: true) { id } '.repeat(60)} } } }` }, code: 'query_too_many_directives' },
  { name: '30,000 tokens', body: { query: `{ brands { items { ${'id '.repeat(30_000)} } } }` }, code: 'query_too_long' },
  {
    name: 'a variable list of 100,000 product ids',
    body: {
      query: 'query($ids: [Int!]!) { productVisibility(ids: $ids) { id result } }',
      variables: { ids: Array.from({ length: 100_000 }, (_, i) => i + 1) },
    },
    code: 'query_too_complex',
  },
  {
    name: 'variables over the 1 MiB body limit',
    body: { query: 'query($s: String) { brands { items { id } } }', variables: { s: 'x'.repeat(1_100_000) } },
    code: 'payload_too_large',
    status: 413,
  },
  {
    name: 'an introspection nest, 20 times aliased: types { fields { type { ofType { fields ... } } } }',
    body: { query: `{ ${Array.from({ length: 20 }, (_, i) => `s${i}: __schema { types { ${introspectionNest(3)} } }`).join(' ')} }` },
    code: 'query_too_complex',
  },
  {
    name: 'a list literal nested 3,000 levels (the parser recurses)',
    body: { query: `{ productVisibility(ids: ${'['.repeat(3000)}1${']'.repeat(3000)}) { id } }` },
    code: 'query_too_deep',
  },
  {
    name: 'an object literal nested 3,000 levels in a mutation',
    body: { query: `mutation { createBrand(input: ${'{ a: '.repeat(3000)}1${' }'.repeat(3000)}) { brand { id } } }` },
    code: 'query_too_deep',
  },
  {
    name: 'a batch of operations (batching is off)',
    body: [{ query: '{ brands { items { id } } }' }, { query: '{ brands { items { id } } }' }],
    code: 'validation_failed',
    status: 400,
  },
];

describe('GraphQL query limits: hostile documents are refused before anything runs', () => {
  for (const entry of CORPUS) {
    it(`refuses ${entry.name} with ${entry.code}, without data and without running a resolver`, async () => {
      const res = await sendCounted(entry.body);
      expect(res.status).toBe(entry.status ?? 200);
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0].extensions.code).toBe(entry.code);
      expect(res.body).not.toHaveProperty('data');
      // not even the key was looked up: the refusal came before the context, so no resolver ran
      expect(res.statements).toBe(0);
      expect(res.requestId).toEqual(expect.any(String));
    });
  }

  it('names the measure and the limit in the message and the extensions', async () => {
    const res = await sendCounted({ query: childrenParentNest(4), variables: { id: rootId } });
    const error = res.body.errors[0];
    expect(error.extensions).toMatchObject({ code: 'query_too_complex', limit: QUERY_LIMITS.cost, measured: expect.any(Number) });
    expect(error.extensions.measured).toBeGreaterThan(QUERY_LIMITS.cost);
    expect(error.message).toContain(String(error.extensions.measured));
    expect(error.message).toContain(String(QUERY_LIMITS.cost));
    const deep = await sendCounted({ query: childrenParentNest(7), variables: { id: rootId } });
    expect(deep.body.errors[0].extensions).toMatchObject({ code: 'query_too_deep', measured: 16, limit: QUERY_LIMITS.depth });
  });

  it('still answers an ordinary query after the whole corpus (the process stays up)', async () => {
    for (const entry of CORPUS) await sendCounted(entry.body);
    const res = await graphql(env, viewer.key, 'query($id: Int!) { category(id: $id) { category { name children { name parent { name } } } } }', {
      id: rootId,
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.category.category.children).toHaveLength(6);
  });

  it("measures the same document again with each request's variables (no validation cache lets a larger page through)", async () => {
    const query =
      'query($n: Int) { products(pageSize: $n) { items { images { id name previewUrl downloadUrl } relatedAssets { id name previewUrl downloadUrl } } } }';
    const small = await sendCounted({ query, variables: { n: 5 } });
    expect(small.body.errors).toBeUndefined();
    expect(small.body.data.products.items).toEqual([]);
    const large = await sendCounted({ query, variables: { n: 100 } });
    expect(large.body.errors[0].extensions.code).toBe('query_too_complex');
    expect(large.statements).toBe(0);
  });
});

describe('GraphQL query limits: what is remembered per document never lets a refused operation through', () => {
  it('refuses a document with variables every time its variables are too large, in any order of requests', async () => {
    const query = 'query($n: Int) { products(pageSize: $n) { items { images { id name previewUrl } relatedAssets { id name previewUrl } } } }';
    const codes: Array<string | undefined> = [];
    for (const n of [100, 5, 100, 5, 100]) {
      const res = await sendCounted({ query, variables: { n } });
      codes.push(res.body.errors?.[0].extensions.code);
      if (n === 100) expect(res.statements).toBe(0);
    }
    expect(codes).toEqual(['query_too_complex', undefined, 'query_too_complex', undefined, 'query_too_complex']);
  });

  it('refuses a document without variables again on a repeat, before the key lookup, with the same measure', async () => {
    const query = childrenParentNest(4).replace('query($id: Int!)', 'query').replace('$id', String(rootId));
    const first = await sendCounted({ query });
    const again = await sendCounted({ query });
    expect(first.body.errors[0].extensions.code).toBe('query_too_complex');
    expect(again.body.errors).toEqual(first.body.errors);
    expect(again.statements).toBe(0);
  });

  it("refuses a document GraphQL's rules refuse again on a repeat (its remembered validation), with validation_failed", async () => {
    const query = '{ brands { items { id nope } } }';
    const first = await sendCounted({ query });
    const again = await sendCounted({ query });
    expect(first.body.errors[0].extensions.code).toBe('validation_failed');
    expect(again.body.errors).toEqual(first.body.errors);
    expect(again.body).not.toHaveProperty('data');
    expect(again.statements).toBe(0);
  });

  it('checks the limits before the remembered validation: a document accepted once is refused with larger variables', async () => {
    const query = 'query($n: Int) { categories(pageSize: $n) { items { id children { id children { id parent { children { id } } } } } } }';
    const small = await sendCounted({ query, variables: { n: 1 } });
    expect(small.body.errors?.[0].extensions.code).not.toBe('validation_failed');
    const large = await sendCounted({ query, variables: { n: 100 } });
    expect(large.body.errors[0].extensions.code).toBe('query_too_complex');
    expect(large.statements).toBe(0);
  });

  it('answers an introspection-only document without a key on every repeat, and a data document still needs one', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await counting.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ query: '{ __schema { queryType { name } } }' }),
      });
      expect(res.json()).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
      const data = await counting.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ query: '{ __typename brands { items { id } } }' }),
      });
      expect(data.json().errors[0].extensions.code).toBe('invalid_credentials');
    }
  });
});

describe('GraphQL query limits: what legitimate clients send stays within them', () => {
  it("lets GraphiQL's introspection query through, and it answers", async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    expect(refusalOf(schema, parse(query), {})).toBeNull();
    const res = await graphql(env, viewer.key, query);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.__schema.types.length).toBeGreaterThan(50);
  });

  it('lets a whole 10-level category tree with its parents and brands through: a descending chain counts the tree once', () => {
    const level = (depth: number): string => (depth === 0 ? 'id' : `id pathKey brand { id } parent { id } children { ${level(depth - 1)} }`);
    const measure = measured(`query($root: Int!) { category(id: $root) { category { ${level(10)} } } }`, { root: 1 });
    expect(measure.depth).toBe(13);
    // 5,000 categories at most, each with its 7 fields: the chain's levels share the bound
    expect(measure.cost).toBeLessThanOrEqual(5000 * 7 + 10);
    expect(measure.cost).toBeLessThanOrEqual(QUERY_LIMITS.cost);
  });

  it('counts what @pothos/plugin-complexity counts for queries without a tree or introspection', () => {
    const queries = [
      '{ brands(pageSize: 50) { items { id name } pagination { totalCount } } }',
      '{ products(pageSize: 20) { items { id name images { id previewUrl } category { name brand { name } } } } }',
      '{ templates(pageSize: 10) { items { id versions { id number groups { fields { key } } } } } }',
      '{ searchAssets(input: { endPoint: 40 }) { assets { id tags { name } folders { name parent { name } } } total } }',
    ];
    for (const query of queries) expect(measured(query).cost).toBe(complexityFromQuery(query, { schema }).complexity);
  });
});

describe('every failure on /graphql is a GraphQL answer with extensions.code and an X-Request-Id', () => {
  it('answers malformed JSON with 400 validation_failed in errors[], not the /v1 envelope', async () => {
    const res = await send(env, { method: 'POST', url: '/graphql', key: viewer.key, rawBody: '{"query": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    expect(res.body).not.toHaveProperty('success');
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
  });

  it('answers text/plain with 415 validation_failed in errors[]', async () => {
    const res = await send(env, {
      method: 'POST',
      url: '/graphql',
      key: viewer.key,
      rawBody: '{ brands { items { id } } }',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
  });

  it('gives variables that do not coerce validation_failed, and runs nothing', async () => {
    const res = await sendCounted({ query: 'query($id: Int!) { brand(id: $id) { brand { id } } }', variables: { id: 'seven' } });
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    expect(res.body.errors[0].message).toContain('$id');
    expect(res.body).not.toHaveProperty('data');
  });

  it('gives syntax errors and documents GraphQL refuses validation_failed', async () => {
    const syntax = await graphql(env, viewer.key, '{ brands { items { id } ');
    expect(syntax.body.errors[0].extensions.code).toBe('validation_failed');
    const unknown = await graphql(env, viewer.key, '{ brands { items { nope } } }');
    expect(unknown.body.errors[0].extensions.code).toBe('validation_failed');
  });

  it('answers a method GraphQL has no use for with 405 validation_failed in errors[]', async () => {
    const res = await send(env, { method: 'PUT', url: '/graphql', key: viewer.key, body: { query: '{ brands { items { id } } }' } });
    expect(res.status).toBe(405);
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
  });

  it('answers a body over 1 MiB with 413 payload_too_large in errors[]', async () => {
    const res = await send(env, {
      method: 'POST',
      url: '/graphql',
      key: viewer.key,
      rawBody: `{"query":"${' '.repeat(1_100_000)}"}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ errors: [expect.objectContaining({ extensions: { code: 'payload_too_large' } })] });
  });
});

function measured(query: string, variables: Record<string, unknown> = {}) {
  const document = parse(query);
  const operation = document.definitions.find((d) => d.kind === 'OperationDefinition');
  if (operation?.kind !== 'OperationDefinition') throw new Error('no operation');
  const measure = new QueryMeasure(schema, new Map(), variables, QUERY_LIMITS.cost);
  return { ...measure.shape(operation), cost: measure.cost(operation) };
}

describe('bracketDepth: the nesting of a document read from its text', () => {
  it('counts brackets outside strings, block strings and comments', async () => {
    const { bracketDepth } = await import('../../src/graphql/query-limits.ts');
    expect(bracketDepth('{ a { b(x: [[1]]) } }')).toBe(5);
    expect(bracketDepth('{ a(s: "[[[[{{{{", t: """ ((((( """) } # [[[[[[\n')).toBe(2);
    expect(bracketDepth('{ a(s: "\\"[[[") }')).toBe(2);
  });
});
