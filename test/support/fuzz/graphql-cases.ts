import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import type { Problem } from './check.ts';
import { word } from './operations.ts';
import type { Random } from './random.ts';
import type { WireRequest, WireResponse } from './raw-http.ts';
import type { FuzzWorld } from './world.ts';

/**
 * GraphQL cases from the schema the server introspects: a root field with world ids for its
 * arguments and a shallow selection (two object levels, no type twice on a path, so no
 * Category.children -> parent nest), sent as is or mutated (wrong literals and variables,
 * syntax errors, huge and deeply nested values, bad bodies and content types).
 */
export interface GraphqlCase {
  mutation: string;
  detail: string;
  field: string;
  request: WireRequest;
}

interface Doc {
  operation: 'query' | 'mutation';
  field: GraphQLField<unknown, unknown>;
  /** Printed arguments by name. */
  args: Map<string, string>;
  selection: string;
  variables: Record<string, unknown>;
  declarations: string[];
  extraSelection: string;
}

interface GqlContext {
  world: FuzzWorld;
  rng: Random;
  field: string;
}

/** A world id for an argument, by its name and the field's name; undefined when they say nothing. */
function hinted(arg: string, c: GqlContext): unknown {
  const { world: w, rng, field } = c;
  const spare = /^(delete|revoke|remove|purge|empty|discard)/.test(field);
  const lower = field.toLowerCase();
  if (arg === 'id' || arg === 'ids') {
    let ids: Array<number | string> = [rng.int(1, 30)];
    if (lower.includes('brand')) ids = spare ? w.spareBrandIds : w.brandIds;
    else if (lower.includes('categor')) ids = spare ? w.spareCategoryIds : w.categoryIds;
    else if (lower.includes('template') && !lower.includes('approval')) ids = spare ? w.spareTemplateIds : w.templateIds;
    else if (lower.includes('productshare')) ids = w.productShares.map((s) => s.shareId);
    else if (lower.includes('product')) ids = spare ? w.spareProductIds : [...w.productIds, ...w.publishedIds];
    else if (lower.includes('folder')) ids = w.folderIds;
    else if (lower.includes('file') || lower.includes('version')) ids = w.fileIds;
    return arg === 'ids' ? [rng.pick(ids)] : rng.pick(ids);
  }
  switch (arg) {
    case 'brandId':
      return rng.pick(w.brandIds);
    case 'categoryId':
    case 'parentId':
      return lower.includes('folder') ? rng.pick(w.folderIds) : rng.pick(w.categoryIds);
    case 'productId':
      return rng.pick(w.publishedIds);
    case 'folderId':
      return rng.pick(w.folderIds);
    case 'fileId':
    case 'versionFileId':
      return rng.pick(w.fileIds);
    case 'userId':
      return rng.pick(w.members);
    case 'taskId':
      return rng.pick(w.taskIds);
    case 'templateId':
      return lower.includes('approval') ? rng.pick(w.approvalTemplateIds) : rng.pick(w.templateIds);
    case 'linkToken':
      return w.linkToken;
    case 'callbackUrl':
    case 'url':
      return `${w.peerUrl}/events`;
    case 'from':
      return '2024-06-01T12:00:00Z';
    case 'to':
    case 'expiresAt':
      return new Date(Date.now() + 86_400_000).toISOString();
    case 'pageSize':
      return rng.int(1, 5);
    case 'page':
      return 1;
  }
  return undefined;
}

function valueFor(type: GraphQLInputType, name: string, c: GqlContext, depth = 0): unknown {
  const hint = hinted(name, c);
  const inner = getNullableType(type);
  if (hint !== undefined) return isListType(inner) && !Array.isArray(hint) ? [hint] : hint;
  if (isListType(inner)) return [valueFor(inner.ofType, name, c, depth + 1)];
  if (isEnumType(inner)) return { enum: c.rng.pick(inner.getValues()).name };
  if (isInputObjectType(inner)) {
    const out: Record<string, unknown> = {};
    if (depth > 3) return out;
    for (const f of Object.values(inner.getFields())) {
      if (isNonNullType(f.type) || c.rng.chance(0.4)) out[f.name] = valueFor(f.type, f.name, c, depth + 1);
    }
    return out;
  }
  switch (getNamedType(inner).name) {
    case 'Int':
      return c.rng.int(1, 20);
    case 'Float':
      return c.rng.int(0, 100) / 4;
    case 'Boolean':
      return c.rng.chance(0.5);
    case 'JSON':
    case 'JSONObject':
      return { json: {} };
    default:
      return `${name}-${word(c.rng, 6)}`;
  }
}

/** A GraphQL literal for a value made by valueFor (enums and JSON objects are tagged). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if ('enum' in v && Object.keys(v).length === 1) return String(v.enum);
    if ('json' in v && Object.keys(v).length === 1) return literal(v.json);
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}: ${literal(x)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value);
}

function selectionFor(type: GraphQLOutputType, rng: Random, depth: number, seen: Set<string>): string {
  const named = getNamedType(type);
  if (isLeafType(named)) return '';
  if (!isObjectType(named) || depth >= 2 || seen.has(named.name)) return '{ __typename }';
  const fields = Object.values((named as GraphQLObjectType).getFields()).filter((f) => !f.args.some((a) => isNonNullType(a.type)));
  const leaves = rng.shuffle(fields.filter((f) => isLeafType(getNamedType(f.type)))).slice(0, 6);
  const objects = rng.shuffle(fields.filter((f) => !isLeafType(getNamedType(f.type)))).slice(0, 2);
  const inner = new Set([...seen, named.name]);
  const parts = [...leaves.map((f) => f.name), ...objects.map((f) => `${f.name} ${selectionFor(f.type, rng, depth + 1, inner)}`)];
  return `{ ${parts.length > 0 ? parts.join(' ') : '__typename'} }`;
}

function documentOf(schema: GraphQLSchema, c: Omit<GqlContext, 'field'>): Doc {
  const operation = c.rng.chance(0.6) ? 'query' : 'mutation';
  const root = operation === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
  const field = c.rng.pick(Object.values(root.getFields()));
  const ctx: GqlContext = { ...c, field: field.name };
  const args = new Map<string, string>();
  for (const arg of field.args) {
    if (isNonNullType(arg.type) || c.rng.chance(0.3)) args.set(arg.name, literal(valueFor(arg.type, arg.name, ctx)));
  }
  return { operation, field, args, selection: selectionFor(field.type, c.rng, 0, new Set()), variables: {}, declarations: [], extraSelection: '' };
}

function print(doc: Doc): string {
  const args = [...doc.args].map(([k, v]) => `${k}: ${v}`).join(', ');
  const decl = doc.declarations.length > 0 ? `(${doc.declarations.join(', ')})` : '';
  return `${doc.operation} Fuzz${decl} { ${doc.field.name}${args ? `(${args})` : ''} ${doc.selection} ${doc.extraSelection} }`;
}

/** The wire request of a document. */
function post(body: string | Buffer, key: string | null, contentType = 'application/json', extra: Array<[string, string]> = []): WireRequest {
  const headers: Array<[string, string]> = [['Accept', 'application/graphql-response+json, application/json']];
  if (key !== null) headers.push(['Authorization', `Bearer ${key}`]);
  if (contentType) headers.push(['Content-Type', contentType]);
  return { method: 'POST', target: '/graphql', headers: [...headers, ...extra], body: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8') };
}

const jsonBody = (doc: Doc) => JSON.stringify({ query: print(doc), variables: doc.variables, operationName: 'Fuzz' });
const someArg = (doc: Doc, rng: Random): GraphQLArgument | undefined => (doc.field.args.length > 0 ? rng.pick(doc.field.args) : undefined);
const nest = (depth: number) => `${'{ a '.repeat(depth)}${'}'.repeat(depth)}`;

type GqlMutation = (doc: Doc, key: string, c: Omit<GqlContext, 'field'>) => { detail: string; request: WireRequest };

/** Each mutation of a GraphQL request, by name. */
export const GRAPHQL_MUTATIONS: Record<string, GqlMutation> = {
  valid: (doc, key) => ({ detail: 'as generated', request: post(jsonBody(doc), key) }),
  'literal-wrong-type': (doc, key, { rng }) => {
    const arg = someArg(doc, rng);
    if (!arg) return { detail: 'no argument: unknown argument added', request: post(jsonBody({ ...doc, args: new Map([['bogus', '1']]) }), key) };
    const value = rng.pick(['"text"', '12', '1.5', 'true', 'null', '[1]', '{a: 1}', 'ENUM_VALUE', '2147483648', '-2147483649', '1e308']);
    doc.args.set(arg.name, value);
    return { detail: `${arg.name}: ${value}`, request: post(jsonBody(doc), key) };
  },
  'variable-wrong-type': (doc, key, { rng }) => {
    const arg = someArg(doc, rng);
    if (!arg) return { detail: 'no argument', request: post(jsonBody(doc), key) };
    doc.args.set(arg.name, '$v');
    doc.declarations.push(`$v: ${String(arg.type)}`);
    const value = rng.pick(['abc', 2147483648, 1.5, true, [], { a: 1 }, null, 9007199254740993, '\u0000']);
    doc.variables = rng.chance(0.15) ? {} : { v: value };
    return { detail: `$v: ${String(arg.type)} = ${JSON.stringify(doc.variables.v ?? '(missing)')}`, request: post(jsonBody(doc), key) };
  },
  'unknown-field': (doc, key) => {
    doc.extraSelection = 'fuzzUnknownField';
    return { detail: 'selects fuzzUnknownField', request: post(jsonBody(doc), key) };
  },
  'missing-argument': (doc, key, { rng }) => {
    const required = doc.field.args.filter((a) => isNonNullType(a.type));
    if (required.length === 0) return { detail: 'no required argument', request: post(jsonBody(doc), key) };
    const arg = rng.pick(required);
    doc.args.delete(arg.name);
    return { detail: `without ${arg.name}`, request: post(jsonBody(doc), key) };
  },
  'syntax-error': (doc, key, { rng }) => {
    const text = print(doc);
    const broken = rng.pick([
      text.slice(0, Math.floor(text.length / 2)),
      '{',
      '}}}}',
      'query {',
      `${text} }`,
      'query Fuzz($: Int) { a }',
      '\u0000',
      '{ a(x: "unterminated) }',
      '#',
    ]);
    return { detail: `document ${JSON.stringify(broken.slice(0, 40))}`, request: post(JSON.stringify({ query: broken }), key) };
  },
  'huge-string': (doc, key, { rng }) => {
    const size = rng.pick([100_000, 700_000, 1_200_000]);
    const arg = doc.field.args.find((a) => getNamedType(a.type).name === 'String');
    const value = 'x'.repeat(size);
    if (arg) {
      doc.args.set(arg.name, JSON.stringify(value));
      return { detail: `${arg.name}: ${size}-character string`, request: post(jsonBody(doc), key) };
    }
    doc.variables = { unused: value };
    return { detail: `unused variable of ${size} characters`, request: post(jsonBody(doc), key) };
  },
  'control-characters': (doc, key, { rng }) => {
    const arg = doc.field.args.find((a) => getNamedType(a.type).name === 'String');
    const value = rng.pick(['a\u0000b', 'a\u0001b', '\u001b[31m', 'a\u007fb', '\ud800', '\u202e']);
    if (arg) doc.args.set(arg.name, JSON.stringify(value));
    else doc.variables = { unused: value };
    return { detail: `${arg?.name ?? 'variable'} = ${JSON.stringify(value)}`, request: post(jsonBody(doc), key) };
  },
  'boundary-number': (doc, key, { rng }) => {
    const arg = doc.field.args.find((a) => ['Int', 'Float'].includes(getNamedType(a.type).name));
    const value = rng.pick(['0', '-1', '2147483647', '2147483648', '9007199254740993', '1e308', '-1e308', '1.5']);
    if (!arg) return { detail: 'no number argument', request: post(jsonBody(doc), key) };
    doc.args.set(arg.name, isListType(getNullableType(arg.type)) ? `[${value}]` : value);
    return { detail: `${arg.name}: ${value}`, request: post(jsonBody(doc), key) };
  },
  'impossible-date': (doc, key, { rng }) => {
    const date = rng.pick(['2024-02-30T00:00:00Z', '2024-01-01T25:00:00Z', '2024-13-01T00:00:00Z', '2024-02-30']);
    const arg = doc.field.args.find((a) => /from|to|At$|before|after/i.test(a.name)) ?? doc.field.args.find((a) => getNamedType(a.type).name === 'String');
    if (!arg) return { detail: 'no date argument', request: post(jsonBody(doc), key) };
    doc.args.set(arg.name, JSON.stringify(date));
    return { detail: `${arg.name}: ${date}`, request: post(jsonBody(doc), key) };
  },
  'deep-nesting': (doc, key, { rng }) => {
    const where = rng.pick(['selection of an unknown field', 'variables', 'list literal']);
    if (where === 'variables') {
      const body = `{"query":${JSON.stringify(print(doc))},"variables":{"deep":${'['.repeat(3000)}${']'.repeat(3000)}}}`;
      return { detail: '3,000-level nested variable', request: post(body, key) };
    }
    if (where === 'list literal') {
      const arg = someArg(doc, rng);
      doc.args.set(arg?.name ?? 'bogus', `${'['.repeat(3000)}${']'.repeat(3000)}`);
      return { detail: `${arg?.name ?? 'bogus'}: 3,000-level nested list`, request: post(jsonBody(doc), key) };
    }
    return { detail: '3,000-level nested selection of an unknown field', request: post(JSON.stringify({ query: `query { fuzzUnknown ${nest(3000)} }` }), key) };
  },
  aliases: (doc, key) => ({
    detail: '300 aliases of __typename',
    request: post(JSON.stringify({ query: `{ ${Array.from({ length: 300 }, (_, i) => `a${i}: __typename`).join(' ')} }` }), key),
  }),
  'fragment-cycle': (_doc, key) => ({
    detail: 'fragments that spread each other',
    request: post(JSON.stringify({ query: 'query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }' }), key),
  }),
  'unknown-directive': (doc, key) => {
    doc.extraSelection = '__typename @fuzz(x: 1) __schema @skip(if: "yes") { queryType { name } }';
    return { detail: 'unknown directive and a String for @skip(if:)', request: post(jsonBody(doc), key) };
  },
  'operation-name': (doc, key, { rng }) => {
    const name = rng.pick(['Missing', '', 'Fuzz Fuzz', '\u0000']);
    return {
      detail: `operationName ${JSON.stringify(name)}`,
      request: post(JSON.stringify({ query: `${print(doc)} query Other { __typename }`, operationName: name }), key),
    };
  },
  batch: (doc, key) => ({ detail: 'a JSON array of two requests', request: post(`[${jsonBody(doc)},${jsonBody(doc)}]`, key) }),
  'body-shape': (_doc, key, { rng }) => {
    const body = rng.pick([
      '{}',
      '{"query":null}',
      '{"query":1}',
      '{"query":["{ __typename }"]}',
      '{"query":"{ __typename }","variables":"x"}',
      '{"query":"{ __typename }","variables":[1]}',
      '{"query":"{ __typename }","extensions":"x"}',
      'null',
      '[]',
      '""',
    ]);
    return { detail: `body ${body}`, request: post(body, key) };
  },
  'malformed-json': (doc, key, { rng }) => {
    const body = rng.pick([jsonBody(doc).slice(0, -3), '{', '{"query":"{ __typename }",}', "{'query':'{ __typename }'}"]);
    return { detail: `body ${JSON.stringify(body.slice(0, 40))}`, request: post(body, key) };
  },
  'content-type': (doc, key, { rng }) => {
    const type = rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '']);
    return { detail: `Content-Type ${JSON.stringify(type)}`, request: post(jsonBody(doc), key, type) };
  },
  'get-request': (doc, key, { rng }) => {
    const query = encodeURIComponent(print(doc));
    const extra = rng.chance(0.5) ? '&variables=%7Bbad' : '';
    return {
      detail: `GET ${doc.operation}${extra ? ' with malformed variables' : ''}`,
      request: {
        method: 'GET',
        target: `/graphql?query=${query}${extra}`,
        headers: [
          ['Accept', 'application/json'],
          ['Authorization', `Bearer ${key}`],
        ],
      },
    };
  },
  caller: (doc, _key, { rng, world }) => {
    const [detail, auth] = rng.pick([
      ['no key', null],
      ['unknown key', 'shelf_nope'],
      ['revoked key', world.revoked],
      ["another team's key", world.stranger],
      ['view_only key', world.keys.view_only],
    ] as Array<[string, string | null]>);
    const member: Array<[string, string]> = rng.chance(0.3) ? [['X-Shelf-Member', rng.pick(['abc', '999999', String(world.members[0])])]] : [];
    return { detail: `${detail}${member.length ? `, X-Shelf-Member ${member[0]![1]}` : ''}`, request: post(jsonBody(doc), auth, 'application/json', member) };
  },
};

/** One GraphQL case: a generated document, changed by the named mutation. */
export function graphqlCase(schema: GraphQLSchema, world: FuzzWorld, rng: Random, mutation: string): GraphqlCase {
  const doc = documentOf(schema, { world, rng });
  const made = GRAPHQL_MUTATIONS[mutation]!(doc, world.keys.manage, { world, rng });
  return { mutation, detail: made.detail, field: `${doc.operation}.${doc.field.name}`, request: made.request };
}

/** A GraphQL answer's problems: a 5xx, no X-Request-Id, not a GraphQL response, or an error without extensions.code. */
export function graphqlProblems(answer: WireResponse): Problem[] {
  if (answer.status === 0) return [{ kind: 'no-answer', message: answer.error ?? 'no answer' }];
  const problems: Problem[] = [];
  if (answer.status >= 500) problems.push({ kind: 'server-error', message: `status ${answer.status}` });
  if (!answer.headers['x-request-id']) problems.push({ kind: 'no-request-id', message: 'no X-Request-Id header' });
  let body: any;
  try {
    body = JSON.parse(answer.body.toString('utf8'));
  } catch {
    problems.push({
      kind: 'graphql-shape',
      message: `status ${answer.status}, body is not JSON: ${JSON.stringify(answer.body.toString('utf8').slice(0, 60))}`,
    });
    return problems;
  }
  // a GraphQL response has only data, errors and extensions, and errors whenever data is missing or null
  const isResponse =
    body !== null &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    Object.keys(body).every((k) => ['data', 'errors', 'extensions'].includes(k)) &&
    (body.errors === undefined || Array.isArray(body.errors)) &&
    (body.data != null || body.errors?.length > 0);
  if (!isResponse) {
    problems.push({ kind: 'graphql-shape', message: `status ${answer.status}, not a GraphQL response: ${JSON.stringify(body).slice(0, 80)}` });
    return problems;
  }
  for (const error of body.errors ?? []) {
    if (typeof error?.extensions?.code !== 'string')
      problems.push({ kind: 'graphql-no-code', message: `error without extensions.code: ${JSON.stringify(error?.message ?? error).slice(0, 100)}` });
  }
  return problems;
}
