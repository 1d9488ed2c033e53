import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError, invalid, notFound } from '../../src/core/platform/errors.ts';
import { sendApprovalError } from '../../src/rest/approval-envelope.ts';
import { type AreaRoutes, envelopeArea } from '../../src/rest/open-area.ts';
import { sendOpenError } from '../../src/rest/open-envelope.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';

/** Routes that throw what the core throws, so each area's mapping is seen on the wire. */
const throwing: AreaRoutes = async (area) => {
  area.get('/template', async () => {
    throw notFound('Template');
  });
  area.get('/reason', async () => {
    throw invalid('callbackUrl', 'resolves to a private address', 'callback_url_not_allowed');
  });
  area.get('/plain-invalid', async () => {
    throw invalid('assets', 'must not be empty');
  });
  area.get('/conflict', async () => {
    throw new DomainError('write_conflict', 'retry');
  });
  area.get('/boom', async () => {
    throw new Error('secret internals');
  });
};

let env: TestEnv;
const app = Fastify({ logger: false });

beforeAll(async () => {
  env = await createTestEnv();
  await app.register(envelopeArea({ routes: [throwing], auth: 'none', sendError: sendApprovalError }), { prefix: '/approval-like', core: env.core });
  await app.register(envelopeArea({ routes: [throwing], auth: 'none', sendError: sendOpenError }), { prefix: '/open-like', core: env.core });
  await app.register(envelopeArea({ routes: [throwing], auth: 'bearer', sendError: sendOpenError }), { prefix: '/guarded', core: env.core });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await env.close();
});

const get = async (url: string) => {
  const res = await app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
};

describe('the /approval envelope maps a domain error once (spec 7.3)', () => {
  it('answers a missing resource as 404 <subject>_not_found', async () => {
    expect(await get('/approval-like/template')).toMatchObject({ status: 404, body: { code: 'template_not_found', result: null } });
  });
  it('answers invalid input as 400 invalid_payload:<reason>', async () => {
    expect(await get('/approval-like/reason')).toMatchObject({ status: 400, body: { code: 'invalid_payload:callback_url_not_allowed' } });
    expect(await get('/approval-like/plain-invalid')).toMatchObject({
      status: 400,
      body: { code: 'invalid_payload:invalid_parameter', details: [{ field: 'assets' }] },
    });
  });
  it('answers an unknown route as 404 route_not_found and an unknown error as 500 internal_error without internals', async () => {
    expect(await get('/approval-like/nothing-here')).toMatchObject({ status: 404, body: { code: 'route_not_found' } });
    const boom = await get('/approval-like/boom');
    expect(boom).toMatchObject({ status: 500, body: { code: 'internal_error', message: 'Internal server error' } });
    expect(JSON.stringify(boom.body)).not.toContain('secret internals');
  });
  it('answers a write conflict as 503 with Retry-After: 1', async () => {
    const res = await get('/approval-like/conflict');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
  });
});

describe('the /open envelope answers a refusal with its reason as the code', () => {
  it('uses the reason as the code, with the status of the domain code', async () => {
    expect(await get('/open-like/reason')).toMatchObject({ status: 400, body: { code: 'callback_url_not_allowed', details: [{ field: 'callbackUrl' }] } });
  });
  it('keeps the table code when there is no reason (invalid_parameter, not_found)', async () => {
    expect(await get('/open-like/plain-invalid')).toMatchObject({ status: 400, body: { code: 'invalid_parameter' } });
    expect(await get('/open-like/template')).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });
});

describe('authentication is an option of the area', () => {
  it('refuses a request without a Bearer key in the area envelope when the area authenticates', async () => {
    expect(await get('/guarded/template')).toMatchObject({ status: 401, body: { code: 'invalid_credentials', result: null } });
  });
  it('lets the routes of an area without authentication run', async () => {
    expect((await get('/open-like/template')).status).toBe(404);
  });
});
