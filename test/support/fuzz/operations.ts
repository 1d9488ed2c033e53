import type { Random } from './random.ts';
import type { FuzzWorld } from './world.ts';

/**
 * Walks the OpenAPI document the app serves and turns each documented operation into valid
 * requests: every parameter and body value is generated from its schema, and where a value names
 * a resource (an id, a token, a callback URL) it is taken from the seeded world instead.
 */

export type Schema = Record<string, any>;
export type Area = 'v1' | 'open' | 'approval';

export interface OpenApiDocument {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, Schema> };
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  id: string;
  method: string;
  /** The documented path, `{id}` placeholders included. */
  path: string;
  area: Area;
  parameters: Parameter[];
  body?: { schema: Schema; required: boolean };
  /** Documented statuses and the content types of each. */
  responses: Record<string, string[]>;
}

/** A request before it goes on the wire: what the mutations change. */
export interface Draft {
  op: Operation;
  method: string;
  /** Path parameter values, inserted into the path as they are (a mutation may put anything there). */
  pathParams: Record<string, string>;
  query: Array<[string, string]>;
  headers: Array<[string, string]>;
  /** The Authorization header, or null for none. */
  authorization: string | null;
  /** The JSON body; undefined sends none. */
  body?: unknown;
  /** Sent instead of `body`, byte for byte. */
  rawBody?: string | Buffer;
  /** The Content-Type; defaults to application/json when there is a body, null sends none. */
  contentType?: string | null;
  /** Sent this many times at once (races between equal requests). */
  copies?: number;
  /** Query values go on the wire unencoded (for the malformed-request mutation). */
  rawTarget?: boolean;
  /** JSON text put in place of a sentinel string of `body` (numbers JSON.stringify cannot write, 3,000-level nests). */
  rawLiterals?: Record<string, string>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function areaOf(path: string): Area | 'graphql' | 'other' {
  if (path.startsWith('/v1/') || path === '/v1') return 'v1';
  if (path.startsWith('/open/') || path === '/open') return 'open';
  if (path.startsWith('/approval')) return 'approval';
  if (path.startsWith('/graphql')) return 'graphql';
  return 'other';
}

/** Every documented operation, in document order. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const area = areaOf(path);
      if (area === 'graphql' || area === 'other') continue;
      const json = op.requestBody?.content?.['application/json'];
      operations.push({
        id: op.operationId ?? `${method} ${path}`,
        method: method.toUpperCase(),
        path,
        area,
        parameters: (op.parameters ?? []).map((p: any) => ({ name: p.name, in: p.in, required: Boolean(p.required), schema: p.schema ?? {} })),
        body: json ? { schema: json.schema ?? {}, required: op.requestBody.required !== false } : undefined,
        responses: Object.fromEntries(Object.entries(op.responses ?? {}).map(([status, r]: [string, any]) => [status, Object.keys(r.content ?? {})])),
      });
    }
  }
  return operations;
}

/** Follows `$ref`s into components.schemas. */
export function resolve(doc: OpenApiDocument, schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let i = 0; s.$ref && i < 10; i++) s = doc.components.schemas[String(s.$ref).split('/').pop()!] ?? {};
  return s;
}

/** The branches of a union, nulls last; the schema itself when it is none. */
export function branches(doc: OpenApiDocument, schema: Schema): Schema[] {
  const s = resolve(doc, schema);
  const list = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (!list) return [s];
  const all = list.flatMap((b) => branches(doc, b));
  return [...all.filter((b) => b.type !== 'null'), ...all.filter((b) => b.type === 'null')];
}

/** The JSON type a schema stands for (its first non-null branch). */
export function typeOf(doc: OpenApiDocument, schema: Schema): string {
  const first = branches(doc, schema)[0] ?? {};
  if (first.type) return Array.isArray(first.type) ? first.type[0] : first.type;
  if (first.enum) return typeof first.enum[0];
  if (first.properties) return 'object';
  return 'unknown';
}

/** Strings that match the patterns the document uses; anything else gets a word. */
const PATTERN_VALUES: Record<string, (rng: Random) => string> = {
  '^#?[0-9a-fA-F]{6}$': (rng) => rng.pick(['#ff0000', '00c000', '#336699']),
  '^[0-9a-fA-F]{6}$': (rng) => rng.pick(['ff0000', '336699']),
  '^[0-9a-fA-F]{64}$': () => 'a'.repeat(64),
  '^[A-Za-z_][A-Za-z0-9_]*$': (rng) => `f_${word(rng, 6)}`,
  '^\\.?[A-Za-z0-9]{1,32}$': (rng) => rng.pick(['png', '.txt', 'jpg']),
  '^\\d+$': (rng) => String(rng.int(1, 50)),
  '^(?=.*\\S)[^/]+$': (rng) => `Name ${word(rng, 5)}`,
  '^[^\\u0000-\\u001f\\u007f]*$': (rng) => `pass-${word(rng, 6)}`,
};

export function word(rng: Random, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += String.fromCharCode(97 + rng.int(0, 25));
  return out;
}

const future = (days: number) => new Date(Date.UTC(2100, 0, 1) + days * 86_400_000).toISOString();
const recent = () => '2024-06-01T12:00:00Z';

/** The context a value is generated in: which operation, which world. */
interface ValueContext {
  doc: OpenApiDocument;
  op: Operation;
  world: FuzzWorld;
  rng: Random;
  /** Destructive operations aim at spare resources. */
  destructive: boolean;
}

/**
 * A world value for a named field, or undefined when the name says nothing. The names are those
 * of the document's parameters and bodies (see the area pages in docs/).
 */
function hinted(name: string, c: ValueContext, type: string): unknown {
  const { world: w, rng, op } = c;
  const oneOf = <T>(main: T[], spare: T[]) => rng.pick(c.destructive ? spare : main);
  const onFolders = op.area === 'open';
  switch (name) {
    case 'brandId':
      return rng.pick(w.brandIds);
    case 'categoryId':
      return rng.pick(w.categoryIds);
    case 'parentId':
      return onFolders ? rng.pick(w.folderIds) : rng.chance(0.5) ? w.categoryIds[0] : null;
    case 'folderId':
      return rng.pick(w.folderIds);
    case 'folderIds':
      return [rng.pick(w.folderIds)];
    case 'templateId':
      return op.area === 'approval' ? rng.pick(w.approvalTemplateIds) : rng.pick(w.templateIds);
    case 'replacementForLibraryDefault':
      return null;
    case 'coverAssetId':
      return rng.pick(w.imageIds);
    case 'imageAssetIds':
    case 'assetIds':
      return [rng.pick(w.imageIds)];
    case 'relatedAssetIds':
      return [rng.pick(w.fileIds)];
    case 'iconAssetId':
      return null;
    case 'ids':
      return type === 'string' ? w.fileIds.join(',') : [...w.productIds, ...w.publishedIds];
    case 'ownerUserId':
    case 'currentUserId':
      return rng.pick(w.members);
    case 'createUsers':
      return [rng.pick(w.members)];
    case 'createdBy':
      return String(rng.pick(w.members));
    case 'tags':
      return [rng.pick(w.tagIds)];
    case 'boundBrandIds':
      return [oneOf(w.brandIds, w.spareBrandIds)];
    case 'boundCategoryIds':
      return [rng.pick(w.categoryIds)];
    case 'linkToken':
      return w.linkToken;
    case 'callbackUrl':
      return `${w.peerUrl}/${op.area === 'approval' ? 'approvals' : 'events'}`;
    case 'taskId':
      return rng.pick(w.taskIds);
    case 'assets':
      return [{ name: `${word(rng, 5)}.png`, url: `${w.peerUrl}/bytes/${word(rng, 8)}` }];
    case 'eventTypes':
      return [rng.pick(['MATERIAL_INBOUND_COMPLETED', 'MATERIAL_DELETED'])];
    case 'eventType':
      return 'FOLDER_CONTENT_UPDATE';
    case 'operation':
      return rng.chance(0.8) ? 'ADD' : 'DELETE';
    case 'expiresAt':
      return new Date(Date.now() + rng.int(1, 30) * 86_400_000).toISOString();
    case 'before':
    case 'from':
      return recent();
    case 'to':
      return future(rng.int(0, 10));
    case 'updatedAfter':
      return recent();
    case 'sync':
      return rng.pick(['true', 'false']);
    case 'status':
      return rng.pick(['draft', 'published']);
    case 'resourceType':
      return rng.pick(['brand', 'category', 'template', 'product', 'share', 'download', 'activity_records']);
    case 'resourceId':
      return String(rng.pick(w.brandIds));
    case 'actorKeyId':
      return rng.int(1, 8);
    case 'folder':
      return rng.pick(w.folderPaths);
    case 'logoUrl':
      return null;
    case 'templateFields':
      return {};
    case 'cursor':
      return undefined;
  }
  return undefined;
}

/** A valid value for a schema (within its bounds, an example when it has one). */
export function fuzzValue(schema: Schema, name: string, c: ValueContext, depth = 0): unknown {
  const options = branches(c.doc, schema);
  const s = options[0] ?? {};
  const type = typeOf(c.doc, schema);
  const hint = hinted(name, c, type);
  if (hint !== undefined || name === 'cursor') return hint;
  if (s.const !== undefined) return s.const;
  if (s.enum) return c.rng.pick(s.enum);
  const unionOfEnums = options.filter((b) => b.enum || b.const !== undefined);
  if (unionOfEnums.length > 1) return c.rng.pick(unionOfEnums.map((b) => b.const ?? b.enum[0]));
  switch (type) {
    case 'object':
      return objectOf(s, c, depth);
    case 'array': {
      const min = s.minItems ?? 0;
      const count = Math.max(min, Math.min(s.maxItems ?? 3, c.rng.int(min === 0 ? 0 : min, 2)));
      return Array.from({ length: count }, () => fuzzValue(s.items ?? {}, `${name}[]`, c, depth + 1));
    }
    case 'integer':
    case 'number': {
      const min = s.minimum ?? 0;
      return c.rng.int(min, Math.min(s.maximum ?? min + 50, min + 50));
    }
    case 'boolean':
      return c.rng.chance(0.5);
    case 'string':
      return stringOf(s, c.rng);
    default:
      return null;
  }
}

function objectOf(s: Schema, c: ValueContext, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (depth > 4) return out;
  const required = new Set<string>(s.required ?? []);
  for (const [key, prop] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
    if (!required.has(key) && !c.rng.chance(0.5)) continue;
    const value = fuzzValue(prop, key, c, depth + 1);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function stringOf(s: Schema, rng: Random): string {
  if (s.format === 'date-time') return recent();
  if (s.format === 'uri') return `https://example.com/${word(rng, 6)}`;
  if (typeof s.pattern === 'string') {
    if (s.pattern.startsWith('^\\d{4}-\\d\\d-\\d\\dT')) return s.pattern.includes('\\d{6}Z') ? '2024-06-01T12:00:00.000000Z' : recent();
    const make = PATTERN_VALUES[s.pattern];
    if (make) return make(rng);
  }
  const min = s.minLength ?? 1;
  const max = Math.min(s.maxLength ?? 24, 24);
  return word(rng, Math.max(min, Math.min(max, rng.int(3, 12))));
}

/** The fields each approval service needs (spec 4.8): the schema names them all as optional. */
const APPROVAL_SERVICES: Record<string, string[]> = {
  listTemplates: [],
  createApproval: ['templateId', 'createdBy', 'assets', 'reason'],
  taskStatusQuery: ['taskId'],
  subscriptionQuery: [],
  subscriptionChange: ['operation', 'callbackUrl'],
};

function approvalBody(c: ValueContext): Record<string, unknown> {
  const service = c.rng.pick(Object.keys(APPROVAL_SERVICES));
  const body: Record<string, unknown> = { service };
  const props = resolve(c.doc, c.op.body!.schema).properties as Record<string, Schema>;
  for (const field of APPROVAL_SERVICES[service]!) body[field] = fuzzValue(props[field] ?? {}, field, c);
  return body;
}

const isDestructive = (op: Operation) => op.method === 'DELETE' || /delete|revoke|purge/i.test(op.id);

/** A valid request of an operation, sent with the manage key. */
export function validDraft(doc: OpenApiDocument, op: Operation, world: FuzzWorld, rng: Random): Draft {
  const c: ValueContext = { doc, op, world, rng, destructive: isDestructive(op) };
  const draft: Draft = { op, method: op.method, pathParams: {}, query: [], headers: [], authorization: `Bearer ${world.keys.manage}` };
  for (const p of op.parameters) {
    if (p.in === 'path') draft.pathParams[p.name] = String(pathValue(op, p.name, c));
    else if (p.in === 'query' && (p.required || rng.chance(0.4))) {
      const value = fuzzValue(p.schema, p.name, c);
      if (value !== undefined && value !== null) draft.query.push([p.name, String(value)]);
    }
  }
  if (op.body) {
    if (op.id === 'approval') draft.body = approvalBody(c);
    else if (op.body.required || rng.chance(0.5)) draft.body = fuzzValue(op.body.schema, '(body)', c);
  }
  return draft;
}

/** A path id that exists: the resource the path names (a spare one for destructive operations). */
function pathValue(op: Operation, name: string, c: ValueContext): string | number {
  const { world: w, rng } = c;
  if (name === 'shareId' || op.path.includes('{shareId}')) {
    const share = rng.pick(c.destructive ? w.productShares.slice(1) : w.productShares);
    return name === 'shareId' ? share.shareId : share.productId;
  }
  const spare = c.destructive;
  if (op.path.startsWith('/v1/brands/')) return rng.pick(spare ? w.spareBrandIds : w.brandIds);
  if (op.path.startsWith('/v1/categories/')) return rng.pick(spare ? w.spareCategoryIds : w.categoryIds);
  if (op.path.startsWith('/v1/product-info-templates/')) return rng.pick(spare ? w.spareTemplateIds : w.templateIds);
  if (op.path.startsWith('/v1/products/')) {
    if (spare) return rng.pick(w.spareProductIds);
    return /downloads|shares/.test(op.path) ? rng.pick(w.publishedIds) : rng.pick([...w.productIds, ...w.publishedIds]);
  }
  return rng.int(1, 20);
}

/** The request as bytes and headers. */
export function toWire(draft: Draft): { method: string; target: string; headers: Array<[string, string]>; body?: Buffer } {
  let path = draft.op.path;
  for (const [name, value] of Object.entries(draft.pathParams)) path = path.replace(`{${name}}`, value);
  const encode = draft.rawTarget ? (v: string) => v : encodeQueryPart;
  const query = draft.query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
  const headers: Array<[string, string]> = [];
  if (draft.authorization !== null) headers.push(['Authorization', draft.authorization]);
  let body: Buffer | undefined;
  if (draft.rawBody !== undefined) body = Buffer.isBuffer(draft.rawBody) ? draft.rawBody : Buffer.from(draft.rawBody, 'utf8');
  else if (draft.body !== undefined) {
    let text = JSON.stringify(draft.body);
    for (const [sentinel, literal] of Object.entries(draft.rawLiterals ?? {})) text = text.replace(JSON.stringify(sentinel), () => literal);
    body = Buffer.from(text, 'utf8');
  }
  const contentType = draft.contentType === undefined ? (body ? 'application/json' : null) : draft.contentType;
  if (contentType !== null) headers.push(['Content-Type', contentType]);
  headers.push(...draft.headers);
  return { method: draft.method, target: query ? `${path}?${query}` : path, headers, body };
}

/** Percent-encodes what a URL cannot carry raw, leaving '%' as it is so a mutation can send its own escapes. */
function encodeQueryPart(value: string): string {
  return value.replace(/[^A-Za-z0-9\-._~%!$'()*+,;:@/?]/gu, (ch) =>
    [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}
