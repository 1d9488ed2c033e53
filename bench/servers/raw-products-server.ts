/**
 * The floor for the products benchmark: a minimal Fastify + pg handler serving the same
 * GET /v1/products pages as Shelf (ordinary pages of 20, filtered and not, and sync keyset pages of
 * 100 following a signed cursor), with raw SQL and nothing else. Per request: the Bearer key looked
 * up by its SHA-256, one page query (plus, for ordinary pages, one count run alongside it), one
 * media query for every file of the page, signed preview and download links, and the same JSON
 * envelope and item shape (media objects included). No ORM, no hooks, no schemas, no validation
 * beyond what the measured requests need. LINK_SIGNING_SECRET and PUBLIC_BASE_URL must match
 * Shelf's, so links and cursors are comparable. RAW_PREPARED=1 runs every statement by name
 * (prepared once per connection). RAW_TOTALS=memo keeps exact totals in a Map keyed by the team's
 * product version (and library version for searches), as Shelf does, instead of counting on every
 * request: the floor for the work that is left once the count is gone.
 */

import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { serveUntilStopped } from './serve.ts';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.RAW_POOL_MAX ?? 10) });
const SECRET = process.env.LINK_SIGNING_SECRET!;
const BASE_URL = process.env.PUBLIC_BASE_URL!.replace(/\/+$/, '');
const prepared = process.env.RAW_PREPARED === '1';
const memoTotals = process.env.RAW_TOTALS === 'memo';
const totals = new Map<string, number>();

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const COLUMNS = `p.id, p.name, p.spu, p.description, p.status, p.brand_id, p.category_id, p.owner_id, ${iso('p.published_at')} as published_at,
  ${iso('p.created_at')} as created_at, ${iso('p.updated_at')} as updated_at, p.draft_reason, p.template_id, p.template_version_id,
  p.template_fields, p.media_fields, p.cover_file_id, p.image_file_ids, p.related_file_ids`;

interface Row {
  id: number;
  name: string;
  spu: string | null;
  description: string | null;
  status: string;
  brand_id: number | null;
  category_id: number | null;
  owner_id: number | null;
  published_at: string | null;
  created_at: string;
  updated_at: string;
  draft_reason: string | null;
  template_id: string | null;
  template_version_id: string | null;
  template_fields: Record<string, unknown>;
  media_fields: Record<string, number[]>;
  cover_file_id: number | null;
  image_file_ids: number[];
  related_file_ids: number[];
}

interface Key {
  id: number;
  team_id: number;
  role: string;
  expires_ms: number | null;
}

async function query<T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T[]> {
  const result = await pool.query<T>(prepared ? { name, text, values } : { text, values });
  return result.rows;
}

function failure(reply: import('fastify').FastifyReply, status: number, code: string, requestId: string) {
  return reply.status(status).send({ success: false, data: null, code, message: code, requestId });
}

async function keyOf(authorization: string | undefined): Promise<Key | null> {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  if (!match) return null;
  const hash = createHash('sha256').update(match[1]!).digest('hex');
  const rows = await query<Key & { active: boolean; expired: boolean }>(
    'key',
    `select id, team_id, role, active, coalesce(expires_at <= now(), false) as expired, (extract(epoch from expires_at) * 1000)::float8 as expires_ms
       from api_keys where key_hash = $1`,
    [hash],
  );
  const key = rows[0];
  return key?.active && !key.expired ? key : null;
}

// --- media objects with signed links (the same links Shelf issues) ---

function link(key: Key, teamId: number, fileId: number, purpose: string, lifetime: number, nowMs: number): { url: string; exp: number } {
  let exp = Math.floor(nowMs / 1000) + lifetime;
  if (key.expires_ms !== null) exp = Math.min(exp, Math.floor(key.expires_ms / 1000));
  const sig = createHmac('sha256', SECRET).update(`shelf-file-link:v1|${teamId}|${fileId}|${purpose}|${exp}`).digest('base64url');
  return { url: `${BASE_URL}/files/${teamId}/${fileId}/${purpose}?exp=${exp}&sig=${sig}`, exp };
}

async function mediaOf(key: Key, rows: Row[]): Promise<Map<number, unknown>> {
  const ids = new Set<number>();
  for (const r of rows) {
    const cover = r.cover_file_id ?? r.image_file_ids[0];
    if (cover !== undefined && cover !== null) ids.add(cover);
    for (const id of r.image_file_ids) ids.add(id);
    for (const id of r.related_file_ids) ids.add(id);
    for (const list of Object.values(r.media_fields)) for (const id of list) ids.add(id);
  }
  const media = new Map<number, unknown>();
  if (ids.size === 0) return media;
  const files = await query<{
    id: number;
    name: string;
    mime_type: string;
    size: string;
    width: number | null;
    height: number | null;
    duration_ms: number | null;
  }>(
    'media',
    `select id, name, mime_type, byte_size::text as size, width, height, duration_ms::float8 as duration_ms
       from library_files where team_id = $1 and deleted_at is null and id = any($2::int[])`,
    [key.team_id, [...ids]],
  );
  const download = key.role !== 'view_only';
  const now = Date.now();
  for (const f of files) {
    let previewUrl: string | null = null;
    if (f.mime_type.startsWith('image/')) {
      previewUrl = f.width !== null ? link(key, key.team_id, f.id, 'preview', 3600, now).url : link(key, key.team_id, f.id, 'preview-original', 300, now).url;
    }
    const object: Record<string, unknown> = {
      id: f.id,
      name: f.name,
      mimeType: f.mime_type,
      size: f.size,
      width: f.width,
      height: f.height,
      duration: f.duration_ms === null ? null : f.duration_ms / 1000,
      previewUrl,
    };
    if (download) {
      const d = link(key, key.team_id, f.id, 'download', 300, now);
      object.downloadUrl = d.url;
      object.downloadUrlExpiresAt = new Date(d.exp * 1000).toISOString();
    }
    media.set(f.id, object);
  }
  return media;
}

function summary(r: Row, media: Map<number, unknown>) {
  const present = (ids: number[]) => ids.map((id) => media.get(id)).filter((m) => m !== undefined);
  const fields: Record<string, unknown> = { ...r.template_fields };
  for (const [field, ids] of Object.entries(r.media_fields)) fields[field] = present(ids);
  const cover = r.cover_file_id ?? r.image_file_ids[0] ?? null;
  return {
    id: r.id,
    name: r.name,
    spu: r.spu,
    description: r.description,
    status: r.status,
    brandId: r.brand_id,
    categoryId: r.category_id,
    ownerUserId: r.owner_id,
    publishedAt: r.published_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    draftReason: r.draft_reason,
    templateId: r.template_id,
    templateVersionId: r.template_version_id,
    templateFields: Object.fromEntries(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    cover: cover === null ? null : (media.get(cover) ?? null),
    images: present(r.image_file_ids),
    relatedAssets: present(r.related_file_ids),
  };
}

// --- filters (the same semantics as Shelf) ---

interface Filters {
  brandId: number | null;
  categoryId: number | null;
  status: string | null;
  search: string | null;
}

function where(key: Key, f: Filters, values: unknown[]): { sql: string; name: string } {
  values.push(key.team_id);
  const parts = ['p.team_id = $1', 'p.deleted_at is null'];
  let name = '';
  if (key.role === 'view_only' || key.role === 'usable') {
    parts.push(`p.status = 'published'`);
    name += 'P';
  }
  const add = (sql: (n: number) => string, value: unknown, tag: string) => {
    values.push(value);
    parts.push(sql(values.length));
    name += tag;
  };
  if (f.status !== null) add((n) => `p.status = $${n}`, f.status, 's');
  if (f.brandId !== null) add((n) => `p.brand_id = $${n}`, f.brandId, 'b');
  if (f.categoryId !== null) add((n) => `p.category_id = $${n}`, f.categoryId, 'c');
  if (f.search !== null) {
    const n = values.push(`%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    parts.push(`(p.name ilike $${n} or p.spu ilike $${n} or p.media_file_ids && array(
      select f.id from library_files f where f.team_id = $1 and f.deleted_at is null and f.name ilike $${n}))`);
    name += 'q';
  }
  return { sql: parts.join(' and '), name };
}

// --- sync cursors: base64url(JSON) + HMAC, as Shelf's ---

interface Scope {
  keyId: number;
  teamId: number;
  filters: Filters;
  pageSize: number;
  lower: string | null;
  upper: string;
}

const mac = (body: string) => createHmac('sha256', SECRET).update(`raw-cursor.v1.${body}`).digest('base64url');

function encodeCursor(scope: Scope, position: { updatedAt: string; id: number }): string {
  const body = Buffer.from(JSON.stringify({ s: scope, p: position })).toString('base64url');
  return `${body}.${mac(body)}`;
}

function decodeCursor(cursor: string): { s: Scope; p: { updatedAt: string; id: number } } | null {
  const dot = cursor.indexOf('.');
  const body = cursor.slice(0, dot);
  const given = Buffer.from(cursor.slice(dot + 1));
  const expected = Buffer.from(mac(body));
  if (dot <= 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
}

const app = Fastify({ logger: false, genReqId: () => randomUUID() });

app.get('/v1/products', async (request, reply) => {
  reply.header('X-Request-Id', request.id).header('Cache-Control', 'no-store');
  const key = await keyOf(request.headers.authorization);
  if (key === null) return failure(reply, 401, 'invalid_credentials', request.id);
  const q = request.query as Record<string, string | undefined>;
  const int = (v: string | undefined) => (v === undefined ? null : Number(v));
  const search = q.search?.trim() ? q.search.trim() : null;
  const filters: Filters = { brandId: int(q.brandId), categoryId: int(q.categoryId), status: q.status ?? null, search };
  const pageSize = Math.min(Number(q.pageSize ?? 20), 100);

  if (q.sync !== 'true') {
    const page = Number(q.page ?? 1);
    const values: unknown[] = [];
    const w = where(key, filters, values);
    const countValues = [...values];
    const countSql = `select count(*)::int as n from products p where ${w.sql}`;
    const versionSql =
      search === null
        ? 'select coalesce((select version from product_versions where team_id = $1), 0)::text as v'
        : `select coalesce((select version from product_versions where team_id = $1), 0)::text || '.' || coalesce((select version from library_versions where team_id = $1), 0)::text as v`;
    const [rows, counted] = await Promise.all([
      query<Row>(
        `list${w.name}`,
        `select ${COLUMNS} from products p where ${w.sql} order by p.updated_at desc, p.id desc limit $${values.length + 1} offset $${values.length + 2}`,
        [...values, pageSize, (page - 1) * pageSize],
      ),
      memoTotals
        ? query<{ v: string }>(`version${search === null ? '' : 'q'}`, versionSql, [key.team_id]).then(async ([version]) => {
            const memoKey = `${version!.v}|${key.role}|${JSON.stringify(filters)}`;
            let n = totals.get(memoKey);
            if (n === undefined) {
              n = (await query<{ n: number }>(`count${w.name}`, countSql, countValues))[0]!.n;
              totals.set(memoKey, n);
            }
            return [{ n }];
          })
        : query<{ n: number }>(`count${w.name}`, countSql, countValues),
    ]);
    const media = await mediaOf(key, rows);
    const totalCount = counted[0]!.n;
    return {
      success: true,
      data: rows.map((r) => summary(r, media)),
      code: null,
      message: null,
      requestId: request.id,
      pagination: { page, pageSize, totalCount, totalPages: Math.ceil(totalCount / pageSize) },
    };
  }

  let scope: Scope;
  let after: { updatedAt: string; id: number } | null = null;
  if (q.cursor !== undefined) {
    const opened = decodeCursor(q.cursor);
    if (opened === null || opened.s.keyId !== key.id) return failure(reply, 422, 'validation_failed', request.id);
    scope = opened.s;
    after = opened.p;
  } else {
    const bounds = await query<{ upper: string; lower: string | null }>(
      'bounds',
      `select ${iso(`(now() - interval '30 seconds')`)} as upper, ${iso('$1::timestamptz')} as lower`,
      [q.updatedAfter ?? null],
    );
    scope = { keyId: key.id, teamId: key.team_id, filters, pageSize, lower: bounds[0]!.lower, upper: bounds[0]!.upper };
  }
  const values: unknown[] = [];
  const w = where(key, scope.filters, values);
  let condition = `${w.sql} and p.updated_at < $${values.push(scope.upper)}::timestamptz`;
  let name = `sync${w.name}`;
  if (scope.lower !== null) {
    condition += ` and p.updated_at >= $${values.push(scope.lower)}::timestamptz`;
    name += 'l';
  }
  if (after !== null) {
    const n = values.push(after.updatedAt);
    condition += ` and (p.updated_at, p.id) > ($${n}::timestamptz, $${values.push(after.id)})`;
    name += 'a';
  }
  const rows = await query<Row>(name, `select ${COLUMNS} from products p where ${condition} order by p.updated_at, p.id limit $${values.length + 1}`, [
    ...values,
    scope.pageSize + 1,
  ]);
  const more = rows.length > scope.pageSize;
  const page = more ? rows.slice(0, scope.pageSize) : rows;
  const media = await mediaOf(key, page);
  const last = page[page.length - 1];
  const nextCursor = more && last ? encodeCursor(scope, { updatedAt: last.updated_at, id: last.id }) : null;
  return {
    success: true,
    data: page.map((r) => summary(r, media)),
    code: null,
    message: null,
    requestId: request.id,
    pagination: { pageSize: scope.pageSize, syncedUntil: scope.upper, nextCursor, hasMore: nextCursor !== null },
  };
});

await serveUntilStopped(app, () => pool.end());
