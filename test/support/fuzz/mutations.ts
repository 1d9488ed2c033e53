import { branches, type Draft, type OpenApiDocument, type Operation, resolve, type Schema, typeOf } from './operations.ts';
import type { Random } from './random.ts';
import type { FuzzWorld } from './world.ts';

/**
 * What a fuzz run does to a valid request: each mutation changes one thing (a field's type, a
 * header, the body's bytes...) and says what it did, so a failure names its cause.
 */
export interface MutationContext {
  doc: OpenApiDocument;
  world: FuzzWorld;
  rng: Random;
  /** The longest array a case sends: 100,000 costs a slow server minutes, so the in-suite run stays lower. */
  largestArray: number;
}

export interface Mutation {
  name: string;
  /** Whether the mutation means something for this operation. */
  applies(op: Operation, doc: OpenApiDocument): boolean;
  /** Changes the draft in place and describes the change. */
  apply(draft: Draft, c: MutationContext): string;
}

/** A place a value goes: a body field (by path), a query parameter or a path parameter. */
interface Target {
  where: 'body' | 'query' | 'path';
  path: Array<string | number>;
  schema: Schema;
}

const label = (t: Target) => `${t.where}.${t.path.join('.')}`;
const hasBody = (op: Operation) => op.body !== undefined;
const always = () => true;

/** Every place of a request a value can be put: the body schema's properties (one level into objects), query and path parameters. */
function targets(op: Operation, doc: OpenApiDocument): Target[] {
  const out: Target[] = [];
  if (op.body) {
    const body = resolve(doc, op.body.schema);
    for (const [key, prop] of Object.entries((body.properties ?? {}) as Record<string, Schema>)) {
      out.push({ where: 'body', path: [key], schema: prop });
      const inner = branches(doc, prop)[0] ?? {};
      const item = inner.type === 'array' ? resolve(doc, inner.items) : inner;
      for (const [sub, subProp] of Object.entries((item.properties ?? {}) as Record<string, Schema>)) {
        out.push({ where: 'body', path: inner.type === 'array' ? [key, 0, sub] : [key, sub], schema: subProp });
      }
    }
  }
  for (const p of op.parameters) if (p.in === 'query' || p.in === 'path') out.push({ where: p.in, path: [p.name], schema: p.schema });
  return out;
}

/** Whether the operation has a target of the kind (`kind` as the mutations' filters take it). */
const hasTarget = (kind: (c: Pick<MutationContext, 'doc'>) => (t: Target) => boolean) => (op: Operation, doc: OpenApiDocument) =>
  targets(op, doc).some(kind({ doc }));
const anyTarget = () => () => true;

function pickTarget(draft: Draft, c: MutationContext, prefer?: (t: Target) => boolean): Target | null {
  const all = targets(draft.op, c.doc);
  const preferred = prefer ? all.filter(prefer) : all;
  const from = preferred.length > 0 ? preferred : all;
  return from.length > 0 ? c.rng.pick(from) : null;
}

/** Puts a value at a target; body values may be raw JSON text (`raw`). */
function put(draft: Draft, t: Target, value: unknown, raw?: string): void {
  if (t.where === 'path') {
    // as a client sends it: percent-encoded (raw request-line bytes are the malformed-request mutation's)
    draft.pathParams[String(t.path[0])] = encodeURIComponent(String(value).replace(/[\ud800-\udfff]/g, '\ufffd'));
    return;
  }
  if (t.where === 'query') {
    draft.query = draft.query.filter(([k]) => k !== t.path[0]);
    draft.query.push([String(t.path[0]), String(value)]);
    return;
  }
  if (draft.body === null || typeof draft.body !== 'object' || Array.isArray(draft.body)) draft.body = {};
  let at = draft.body as Record<string | number, unknown>;
  for (const [i, step] of t.path.slice(0, -1).entries()) {
    const nextIsIndex = typeof t.path[i + 1] === 'number';
    const existing = at[step];
    if (existing === null || typeof existing !== 'object' || Array.isArray(existing) !== nextIsIndex) at[step] = nextIsIndex ? [] : {};
    at = at[step] as Record<string | number, unknown>;
  }
  const last = t.path.at(-1)!;
  if (raw === undefined) {
    at[last] = value;
    return;
  }
  const sentinel = `\u0001raw-${Object.keys(draft.rawLiterals ?? {}).length}\u0001`;
  draft.rawLiterals = { ...draft.rawLiterals, [sentinel]: raw };
  at[last] = sentinel;
}

const isString = (c: Pick<MutationContext, 'doc'>) => (t: Target) => typeOf(c.doc, t.schema) === 'string';
const isNumeric = (c: Pick<MutationContext, 'doc'>) => (t: Target) => ['integer', 'number'].includes(typeOf(c.doc, t.schema));
const isArray = (c: Pick<MutationContext, 'doc'>) => (t: Target) => typeOf(c.doc, t.schema) === 'array';
const isDateLike = (c: Pick<MutationContext, 'doc'>) => (t: Target) => {
  const s = branches(c.doc, t.schema)[0] ?? {};
  return s.format === 'date-time' || String(s.pattern ?? '').startsWith('^\\d{4}') || /^(from|to|before|updatedAfter|expiresAt)$/.test(String(t.path.at(-1)));
};

const short = (value: string, max = 60) => (value.length > max ? `${JSON.stringify(value.slice(0, max))}... (${value.length} chars)` : JSON.stringify(value));

const otherTypes: Record<string, unknown[]> = {
  string: [7, true, null, [], {}, ['a', 1]],
  integer: ['7', 'seven', 1.5, true, null, [], { n: 1 }],
  number: ['7', true, null, [], {}],
  boolean: ['true', 1, 'yes', null, [], {}],
  array: ['a', 1, {}, null, true, [[[]]], [null], [{}]],
  object: ['a', 1, [], null, true],
  unknown: ['a', 1, [], null, {}],
};

const CONTROL = ['\u0001', '\u0007', '\b', '\u001b[31m', '\u007f', '\u0085', '\u2028', '\u2029', '\u200b', '\u202e', '\ufeff', '\r\n', '\t'];
const UNICODE = ['😀👍🏽', 'e\u0301\u0301\u0301', 'שלום', '\u{10FFFF}', '𝔘𝔫𝔦', '\uFFFD', 'Ω≈ç√', 'ﷺ'.repeat(20)];
const IMPOSSIBLE_DATES = [
  '2024-02-30T00:00:00Z',
  '2023-02-29T12:00:00Z',
  '2024-01-01T25:00:00Z',
  '2024-01-01T23:60:00Z',
  '2024-01-01T23:59:60Z',
  '2024-13-01T00:00:00Z',
  '2024-00-10T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999+23:59',
  '2024-06-01T12:00:00+24:00',
  '2024-02-30',
  '2024-04-31T10:00:00.000000Z',
  '+275760-09-13T00:00:00.001Z',
  '1969-12-31T23:59:59Z',
  '2024-06-01T12:00:00.1234567Z',
  '2024-06-01 12:00:00',
  'yesterday',
];
/** JSON number (or string) texts at the edges: 0, -1, 2^31, 2^53, 1e308 and strings that look like numbers. */
const BOUNDARY_NUMBERS = [
  '0',
  '-1',
  '2147483647',
  '2147483648',
  '-2147483649',
  '4294967296',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '1e308',
  '-1e308',
  '1e400',
  '1.5',
  '-0',
  '0.0000001',
  '"NaN"',
  '"Infinity"',
  '"-Infinity"',
  '"0x10"',
  '" 1"',
  '"1e3"',
  '"1_000"',
  '"１２"',
  '"٣"',
  '""',
  '"-0"',
  '"2147483648"',
  '"9007199254740993"',
];
const BAD_PATH_IDS = [
  '0',
  '-1',
  '2147483648',
  '9007199254740993',
  '1e3',
  '1.5',
  'abc',
  '%00',
  '%2e%2e',
  '..',
  '%FF',
  '%E0%A4%A',
  '1%20',
  '0x1',
  '00001',
  '%D9%A1',
  'x'.repeat(2000),
  '1;2',
  '1,2',
  '%2F1',
];
const BAD_IF_MATCH = ['*', '"', 'W/"1"', '"x"', '""', 'x'.repeat(8000), '"a", "b"', '"é"', 'null', '"1-2-3"', 'W/', '"\\""'];
const BAD_IDEMPOTENCY_KEYS = ['', ' ', 'x'.repeat(256), 'x'.repeat(8000), 'é-ключ', 'key with space', 'a\tb', '"quoted"', '../../etc'];
const BAD_REQUEST_IDS = ['x'.repeat(5000), 'é', 'has space', '../../x', '', '<script>', 'a'.repeat(128), 'a'.repeat(129)];
const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/jsonx',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'APPLICATION/JSON',
  '*/*',
  'application/',
  'application/json;;;',
  'image/png',
];
const MALFORMED_BODIES: Array<string | Buffer> = [
  '{',
  '{"name":',
  '{"a":1,}',
  "{'a':1}",
  '\ufeff{"name":"x"}',
  '{"a":1}{"b":2}',
  'NaN',
  '{"name":"a","name":"b"}',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '/* c */ {}',
  '{"a":"\\x41"}',
  '{"a":"\\ud800"}',
  '{"a":"\\udc00\\ud800"}',
  '[1,2',
  'true',
  '"just a string"',
  '12',
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  Buffer.from([0xc0, 0xaf]),
  '{"a":1e999999}',
  '{"a":-}',
  '\u0000',
];
const EMPTY_BODIES: Array<{ raw: string; contentType: string | null; text: string }> = [
  { raw: '', contentType: 'application/json', text: 'empty body as application/json' },
  { raw: '', contentType: null, text: 'empty body without Content-Type' },
  { raw: 'null', contentType: 'application/json', text: 'body null' },
  { raw: '[]', contentType: 'application/json', text: 'body []' },
  { raw: '{}', contentType: 'application/json', text: 'body {}' },
  { raw: '""', contentType: 'application/json', text: 'body ""' },
  { raw: '   ', contentType: 'application/json', text: 'body of spaces' },
];

/** Request lines Node's parser refuses before any route sees them. */
const MALFORMED_REQUESTS: Record<string, (draft: Draft) => void> = {
  'unknown method token FOO': (d) => {
    d.method = 'FOO';
  },
  'method with a space': (d) => {
    d.method = 'GE T';
  },
  'raw space in the query': (d) => {
    d.query.push(['q', 'a b']);
  },
  'raw control byte in the query': (d) => {
    d.query.push(['q', 'a\u0001b']);
  },
  'raw UTF-8 in the query': (d) => {
    d.query.push(['q', 'é']);
  },
};

function deepNest(kind: 'array' | 'object', depth: number): string {
  return kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Replaces an existing header or adds it. */
function setHeader(draft: Draft, name: string, value: string): void {
  draft.headers = draft.headers.filter(([n]) => n.toLowerCase() !== name.toLowerCase());
  draft.headers.push([name, value]);
}

export const MUTATIONS: Mutation[] = [
  {
    name: 'valid',
    applies: always,
    apply: () => 'as documented',
  },
  {
    name: 'other-caller',
    applies: always,
    apply(draft, { world, rng }) {
      const callers: Array<[string, string | null]> = [
        ['view_only key', `Bearer ${world.keys.view_only}`],
        ['usable key', `Bearer ${world.keys.usable}`],
        ['editable key', `Bearer ${world.keys.editable}`],
        ["another team's key", `Bearer ${world.stranger}`],
        ['revoked key', `Bearer ${world.revoked}`],
        ['no Authorization', null],
        ['Bearer without key', 'Bearer '],
        ['Basic scheme', 'Basic dXNlcjpwYXNz'],
        ['lower-case scheme', `bearer ${world.keys.manage}`],
        ['unknown key', 'Bearer shelf_0000000000000000000000000000000000000000'],
        ['key with trailing junk', `Bearer ${world.keys.manage} extra`],
        ['huge key', `Bearer ${'k'.repeat(8000)}`],
      ];
      const [text, value] = rng.pick(callers);
      draft.authorization = value;
      return text;
    },
  },
  {
    name: 'wrong-type',
    applies: hasTarget(anyTarget),
    apply(draft, c) {
      const t = pickTarget(draft, c);
      if (!t) return 'no field to change';
      const value = c.rng.pick(otherTypes[typeOf(c.doc, t.schema)] ?? otherTypes.unknown!);
      put(draft, t, t.where === 'body' ? value : typeof value === 'object' ? JSON.stringify(value) : value);
      return `${label(t)} = ${JSON.stringify(value)}`;
    },
  },
  {
    name: 'unknown-field',
    applies: always,
    apply(draft, { rng }) {
      const name = rng.pick(['unknownField', 'ID', 'teamId', 'team_id', 'deletedAt', '$where', 'id']);
      if (draft.op.body && rng.chance(0.7)) {
        put(draft, { where: 'body', path: [name], schema: {} }, rng.pick([1, 'x', { nested: true }, null]));
        return `body.${name} added`;
      }
      draft.query.push([name, '1']);
      return `query ${name}=1 added`;
    },
  },
  {
    name: 'missing-required',
    applies: (op) => hasBody(op) || op.parameters.some((p) => p.required && p.in === 'query'),
    apply(draft, c) {
      const required = draft.op.body ? ((resolve(c.doc, draft.op.body.schema).required ?? []) as string[]) : [];
      if (required.length > 0 && draft.body && typeof draft.body === 'object') {
        const field = c.rng.pick(required);
        delete (draft.body as Record<string, unknown>)[field];
        return `body.${field} removed`;
      }
      const query = draft.op.parameters.find((p) => p.required && p.in === 'query');
      if (query) {
        draft.query = draft.query.filter(([k]) => k !== query.name);
        return `query ${query.name} removed`;
      }
      delete draft.body;
      return 'body removed';
    },
  },
  {
    name: 'huge-string',
    applies: hasTarget(isString),
    apply(draft, c) {
      const t = pickTarget(draft, c, isString(c));
      if (!t) return 'no field to change';
      const length = t.where === 'body' ? c.rng.pick([5_000, 70_000, 400_000, 1_100_000]) : c.rng.pick([2_000, 9_000, 40_000]);
      const unit = c.rng.pick(['x', 'é', '😀']);
      put(draft, t, unit.repeat(Math.ceil(length / unit.length)));
      return `${label(t)} = ${JSON.stringify(unit)} x ${length}`;
    },
  },
  {
    name: 'deep-nesting',
    applies: hasBody,
    apply(draft, c) {
      const kind = c.rng.pick(['array', 'object'] as const);
      const depth = c.rng.pick([3_000, 3_000, 100_000]);
      if (c.rng.chance(0.3)) {
        draft.rawBody = deepNest(kind, depth);
        return `whole body: ${depth}-level nested ${kind}`;
      }
      const t = pickTarget(draft, c, (x) => x.where === 'body') ?? { where: 'body' as const, path: ['nested'], schema: {} };
      put(draft, t, null, deepNest(kind, depth));
      return `${label(t)} = ${depth}-level nested ${kind}`;
    },
  },
  {
    name: 'control-characters',
    applies: hasTarget(isString),
    apply(draft, c) {
      const t = pickTarget(draft, c, isString(c));
      if (!t) return 'no field to change';
      const chars = c.rng.pick(CONTROL);
      if (t.where === 'body' && c.rng.chance(0.3)) {
        put(draft, t, null, '"\\ud800lone\\udfff"');
        return `${label(t)} = lone surrogates`;
      }
      put(draft, t, `a${chars}b`);
      return `${label(t)} = ${JSON.stringify(`a${chars}b`)}`;
    },
  },
  {
    name: 'nul',
    applies: hasTarget(anyTarget),
    apply(draft, c) {
      const t = pickTarget(draft, c);
      if (!t) return 'no field to change';
      if (t.where === 'body') put(draft, t, 'a\u0000b');
      else put(draft, t, c.rng.pick(['a%00b', '%00', '1%00']));
      return `${label(t)} holds NUL`;
    },
  },
  {
    name: 'impossible-date',
    applies: (op, doc) => /^(createProduct|updateProduct)$/.test(op.id) || hasTarget(isDateLike)(op, doc),
    apply(draft, c) {
      const date = c.rng.pick(IMPOSSIBLE_DATES);
      if (/^(createProduct|updateProduct)$/.test(draft.op.id) && c.rng.chance(0.6)) {
        const { templateId, fieldId } = c.world.dateField;
        const value = c.rng.chance(0.5) ? date : { start: date, end: '2024-03-01' };
        if (draft.op.id === 'createProduct') put(draft, { where: 'body', path: ['templateId'], schema: {} }, templateId);
        put(draft, { where: 'body', path: ['templateFields'], schema: {} }, { [fieldId]: value });
        return `body.templateFields.<date field> = ${JSON.stringify(value)}`;
      }
      const t = pickTarget(draft, c, isDateLike(c));
      if (!t) return 'no field to change';
      if (draft.op.id === 'listProducts' && t.path[0] === 'updatedAfter') draft.query.push(['sync', 'true']);
      put(draft, t, date);
      return `${label(t)} = ${JSON.stringify(date)}`;
    },
  },
  {
    name: 'boundary-number',
    applies: hasTarget(isNumeric),
    apply(draft, c) {
      // half the time: a number the schema allows that an int4 column cannot hold (DESIGN.md "Bounded input")
      const wide = targets(draft.op, c.doc).filter((t) => isNumeric(c)(t) && !((branches(c.doc, t.schema)[0]?.maximum ?? Infinity) <= 2_147_483_647));
      const beyondInt4 = wide.length > 0 && c.rng.chance(0.5);
      const t = beyondInt4 ? c.rng.pick(wide) : pickTarget(draft, c, isNumeric(c));
      if (!t) return 'no field to change';
      const literal = beyondInt4 ? c.rng.pick(['2147483648', '4294967296', '9007199254740991']) : c.rng.pick(BOUNDARY_NUMBERS);
      if (t.where === 'body') put(draft, t, null, literal);
      else put(draft, t, literal.startsWith('"') ? JSON.parse(literal) : literal);
      return `${label(t)} = ${literal}`;
    },
  },
  {
    name: 'empty-body',
    applies: always,
    apply(draft, { rng }) {
      const choice = rng.pick(EMPTY_BODIES);
      delete draft.body;
      draft.rawBody = choice.raw;
      draft.contentType = choice.contentType;
      return choice.text;
    },
  },
  {
    name: 'wrong-content-type',
    applies: hasBody,
    apply(draft, { rng }) {
      const type = rng.pick(CONTENT_TYPES);
      draft.contentType = type;
      if (type.startsWith('application/x-www-form-urlencoded') && draft.body && typeof draft.body === 'object') {
        draft.rawBody = new URLSearchParams(Object.entries(draft.body).map(([k, v]) => [k, String(v)])).toString();
      }
      return `Content-Type: ${type}`;
    },
  },
  {
    name: 'malformed-json',
    applies: always,
    apply(draft, { rng }) {
      const raw = rng.pick(MALFORMED_BODIES);
      draft.rawBody = raw;
      draft.contentType = 'application/json';
      return `body bytes ${Buffer.isBuffer(raw) ? raw.toString('hex') : short(raw)}`;
    },
  },
  {
    name: 'bad-path-id',
    applies: (op) => op.parameters.some((p) => p.in === 'path'),
    apply(draft, { rng }) {
      const param = rng.pick(draft.op.parameters.filter((p) => p.in === 'path'));
      const value = rng.pick(BAD_PATH_IDS);
      draft.pathParams[param.name] = value;
      return `path ${param.name} = ${short(value, 30)}`;
    },
  },
  {
    name: 'bad-if-match',
    applies: always,
    apply(draft, { rng }) {
      const value = rng.pick(BAD_IF_MATCH);
      setHeader(draft, 'If-Match', value);
      return `If-Match: ${short(value, 30)}`;
    },
  },
  {
    name: 'bad-idempotency-key',
    applies: (op) => op.method === 'POST',
    apply(draft, { rng }) {
      if (rng.chance(0.25)) {
        // the same key with another body: a replay of a different request
        setHeader(draft, 'Idempotency-Key', 'fuzz-reused-key');
        return 'Idempotency-Key: fuzz-reused-key (shared by several cases)';
      }
      const value = rng.pick(BAD_IDEMPOTENCY_KEYS);
      setHeader(draft, 'Idempotency-Key', value);
      return `Idempotency-Key: ${short(value, 30)}`;
    },
  },
  {
    name: 'control-byte-header',
    applies: always,
    apply(draft, { rng, world }) {
      const choice = rng.pick([
        ['X-Request-Id', 'a\u0001b'],
        ['Authorization', `Bearer ${world.keys.manage}\u007f`],
        ['If-Match', '"\u0000"'],
        ['Idempotency-Key', 'k\u001bk'],
        ['X-Fuzz', '\u0008'],
        ['Accept', 'application/json\u000b'],
      ] as const);
      if (choice[0] === 'Authorization') draft.authorization = choice[1];
      else setHeader(draft, choice[0], choice[1]);
      return `${choice[0]} holds ${JSON.stringify(choice[1].replace(/[^\u0000-\u001f\u007f]/g, ''))}`;
    },
  },
  {
    name: 'bad-request-id',
    applies: always,
    apply(draft, { rng }) {
      const value = rng.pick(BAD_REQUEST_IDS);
      setHeader(draft, 'X-Request-Id', value);
      return `X-Request-Id: ${short(value, 30)}`;
    },
  },
  {
    name: 'query-shape',
    applies: (op) => op.parameters.some((p) => p.in === 'query'),
    apply(draft, { rng }) {
      const param = rng.pick(draft.op.parameters.filter((p) => p.in === 'query')).name;
      const shapes: Array<[string, Array<[string, string]>]> = [
        [
          'repeated',
          [
            [param, '1'],
            [param, '2'],
          ],
        ],
        ['bracketed', [[`${param}[]`, '1']]],
        ['object-like', [[`${param}[a]`, '1']]],
        ['empty value', [[param, '']]],
        ['malformed escape', [[param, '%E0%A4%A']]],
        ['plus and spaces', [[param, '+ +']]],
        ['percent', [[param, '%']]],
      ];
      const [text, pairs] = rng.pick(shapes);
      draft.query = draft.query.filter(([k]) => k !== param).concat(pairs);
      return `query ${param}: ${text}`;
    },
  },
  {
    name: 'large-array',
    applies: hasTarget(isArray),
    apply(draft, c) {
      const t = pickTarget(draft, c, isArray(c));
      const count = c.rng.pick([101, 1_001, 10_001, c.largestArray]);
      const target = t ?? { where: 'body' as const, path: ['items'], schema: {} };
      put(
        draft,
        target,
        Array.from({ length: count }, (_, i) => (c.rng.chance(0.5) ? i + 1 : 1)),
      );
      return `${label(target)} = ${count} items`;
    },
  },
  {
    name: 'unicode',
    applies: hasTarget(isString),
    apply(draft, c) {
      const t = pickTarget(draft, c, isString(c));
      if (!t) return 'no field to change';
      const value = c.rng.pick(UNICODE);
      put(draft, t, value);
      return `${label(t)} = ${JSON.stringify(value).slice(0, 40)}`;
    },
  },
  {
    name: 'other-method',
    applies: always,
    apply(draft, { rng }) {
      const method = rng.pick(['PUT', 'PATCH', 'DELETE', 'POST', 'GET', 'OPTIONS'].filter((m) => m !== draft.op.method));
      draft.method = method;
      return `method ${method}`;
    },
  },
  {
    name: 'malformed-request',
    applies: always,
    apply(draft, { rng }) {
      const text = rng.pick(Object.keys(MALFORMED_REQUESTS));
      MALFORMED_REQUESTS[text]!(draft);
      draft.rawTarget = true;
      return text;
    },
  },
  {
    name: 'concurrent-copies',
    applies: (op) => op.method !== 'GET',
    apply(draft) {
      draft.copies = 4;
      return 'the valid request sent 4 times at once';
    },
  },
  {
    name: 'maximal-body',
    applies: (op) => hasBody(op) && op.method !== 'GET',
    apply(draft, c) {
      const id = draft.op.id;
      if ((id === 'createTemplate' || id === 'updateTemplate') && draft.body !== null && typeof draft.body === 'object') {
        // 197 select fields of 25 long options: about 0.93 MB, valid and under the 1 MiB limit
        const body = draft.body as Record<string, unknown>;
        body.groups = [{ name: 'Maximal', fields: maximalSelectFields(c.rng.int(1, 1_000_000)) }];
        if (id === 'createTemplate') body.name = `Max ${c.rng.int(1, 1_000_000_000)}`.slice(0, 30);
        return 'a template definition of about 0.93 MB (197 select fields of 25 options)';
      }
      if ((id === 'createProduct' || id === 'updateProduct') && draft.body !== null && typeof draft.body === 'object') {
        // 14 textarea values of 65,000 characters: about 0.91 MB, valid
        const body = draft.body as Record<string, unknown>;
        if (id === 'createProduct') body.templateId = c.world.longTexts.templateId;
        body.templateFields = Object.fromEntries(c.world.longTexts.fieldIds.map((field, i) => [field, `${i} ${'t'.repeat(65_000)}`]));
        return 'template fields of about 0.91 MB (14 textarea values of 65,000 characters)';
      }
      // elsewhere: every string of the valid body at its documented maximum, as long as the body stays under 1 MiB
      const filled = fillStrings(draft.body, c.doc, resolve(c.doc, draft.op.body!.schema));
      draft.body = filled;
      return 'every string of the valid body at its maxLength';
    },
  },
  {
    name: 'bad-content-length',
    applies: hasBody,
    apply(draft, { rng }) {
      const value = rng.pick(['-1', '1.5', 'abc', '0', '99999999999999999999']);
      setHeader(draft, 'Content-Length', value);
      return `Content-Length: ${value}`;
    },
  },
];

/** Select fields whose options make a template definition of about 0.93 MB. */
function maximalSelectFields(salt: number): unknown[] {
  return Array.from({ length: 197 }, (_, i) => ({
    key: `f${i}`,
    name: `Field ${i}`,
    type: 'select',
    config: {
      options: Array.from({ length: 25 }, (_, j) => ({ value: `v${salt}-${i}-${j}-${'x'.repeat(72)}`, label: `Label ${j} ${'y'.repeat(70)}`, sortOrder: j })),
    },
  }));
}

/** The body with each string that has a maxLength (one level into objects) set to that many characters, within 1 MiB in all. */
function fillStrings(body: unknown, doc: OpenApiDocument, schema: Schema): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  let budget = 900_000;
  for (const [key, prop] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const branch = branches(doc, prop).find((b) => b.type === 'string' && typeof b.maxLength === 'number');
    if (!branch || typeof out[key] !== 'string') continue;
    const length = Math.min(branch.maxLength as number, budget);
    budget -= length;
    out[key] = 'm'.repeat(length);
  }
  return out;
}
