/**
 * The yardstick: a minimal Fastify + pg handler doing the same work as Shelf's brand reads, with raw
 * SQL and nothing else. Per request: the same request id and headers, the Bearer key looked up by
 * its SHA-256 (active, not expired), the same brand query filtered by team, the same strong ETag,
 * the same JSON envelope. No ORM, no hooks, no metrics, no schemas.
 * RAW_PREPARED=1 names the statements (server-side prepared); RAW_POOL_MAX sets the pool (default 10,
 * like Shelf's).
 */

import { createHash, randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { serveUntilStopped } from './serve.ts';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.RAW_POOL_MAX ?? 10) });

const BRAND_COLUMNS = `id, name, code, description, website, sort_order as "sortOrder", is_enabled as "isEnabled",
  to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "createdAt",
  to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "updatedAt"`;
const ROLES = new Set(['view_only', 'usable', 'editable', 'manage']);
/** RAW_PREPARED=1: named (server-side prepared) statements, planned once per connection. */
const prepared = process.env.RAW_PREPARED === '1';
const named = (name: string) => (prepared ? { name } : {});

function failure(reply: import('fastify').FastifyReply, status: number, code: string, requestId: string) {
  return reply.status(status).send({ success: false, data: null, code, message: code, requestId });
}

/** The key lookup: one indexed query by hash; null when the key does not grant access. */
async function teamOfKey(authorization: string | undefined): Promise<number | null> {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  if (!match) return null;
  const hash = createHash('sha256').update(match[1]!).digest('hex');
  const { rows } = await pool.query<{ team_id: number; role: string; active: boolean; expired: boolean }>({
    ...named('key'),
    text: 'select team_id, role, active, coalesce(expires_at <= now(), false) as expired from api_keys where key_hash = $1',
    values: [hash],
  });
  const key = rows[0];
  return key?.active && !key.expired && ROLES.has(key.role) ? key.team_id : null;
}

const app = Fastify({ logger: false, genReqId: () => randomUUID() });

app.get('/v1/brands/:id', async (request, reply) => {
  reply.header('X-Request-Id', request.id).header('Cache-Control', 'no-store');
  const teamId = await teamOfKey(request.headers.authorization);
  if (teamId === null) return failure(reply, 401, 'invalid_credentials', request.id);
  const id = Number((request.params as { id: string }).id);
  if (!Number.isInteger(id) || id < 1 || id > 2147483647) return failure(reply, 422, 'validation_failed', request.id);
  const { rows } = await pool.query({
    ...named('brand'),
    text: `select ${BRAND_COLUMNS} from brands where id = $1 and team_id = $2 and deleted_at is null`,
    values: [id, teamId],
  });
  const brand = rows[0];
  if (!brand) return failure(reply, 404, 'not_found', request.id);
  reply.header('ETag', `"${createHash('sha256').update(JSON.stringify(brand)).digest('base64url').slice(0, 27)}"`);
  return { success: true, data: brand, code: null, message: null, requestId: request.id };
});

app.get('/v1/brands', async (request, reply) => {
  reply.header('X-Request-Id', request.id).header('Cache-Control', 'no-store');
  const teamId = await teamOfKey(request.headers.authorization);
  if (teamId === null) return failure(reply, 401, 'invalid_credentials', request.id);
  const query = request.query as { page?: string; pageSize?: string };
  const page = Number(query.page ?? 1);
  const pageSize = Math.min(Number(query.pageSize ?? 20), 100);
  if (!Number.isInteger(page) || page < 1 || !Number.isInteger(pageSize) || pageSize < 1) {
    return failure(reply, 422, 'validation_failed', request.id);
  }
  const { rows } = await pool.query({
    ...named('brands'),
    text: `select ${BRAND_COLUMNS}, count(*) over () as total from brands
      where team_id = $1 and deleted_at is null order by sort_order, id limit $2 offset $3`,
    values: [teamId, pageSize, (page - 1) * pageSize],
  });
  let totalCount = rows.length > 0 ? Number(rows[0].total) : 0;
  if (rows.length === 0 && page > 1) {
    const counted = await pool.query('select count(*) as n from brands where team_id = $1 and deleted_at is null', [teamId]);
    totalCount = Number(counted.rows[0].n);
  }
  const data = rows.map(({ total: _total, ...brand }) => brand);
  return {
    success: true,
    data,
    code: null,
    message: null,
    requestId: request.id,
    pagination: { page, pageSize, totalCount, totalPages: Math.ceil(totalCount / pageSize) },
  };
});

await serveUntilStopped(app, () => pool.end());
