import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printedSchema } from '../../src/graphql/index.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { send } from '../support/http.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => env.close());

const checkedIn = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('schema/ files (run `npm run schema:generate` after changing the API)', () => {
  it('schema/schema.graphql matches the Pothos schema in the code', async () => {
    expect(printedSchema()).toBe(await checkedIn('schema/schema.graphql'));
  });

  it('schema/openapi.json matches the document generated from the route schemas', async () => {
    expect(`${JSON.stringify(env.app.swagger(), null, 2)}\n`).toBe(await checkedIn('schema/openapi.json'));
  });
});

describe('GET /v1/openapi.json', () => {
  it('serves a valid OpenAPI 3.1 document, checked by a real validator', async () => {
    const res = await send(env, { url: '/v1/openapi.json' });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(res.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents every brand operation with its operationId', async () => {
    const res = await send(env, { url: '/v1/openapi.json' });
    const operationIds = Object.values(res.body.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((ops) =>
      Object.values(ops).map((op) => op.operationId),
    );
    expect(operationIds).toEqual(expect.arrayContaining(['listBrands', 'createBrand', 'getBrand', 'updateBrand', 'deleteBrand']));
  });
});

describe('GET /docs', () => {
  it('serves a human-readable API reference page', async () => {
    const res = await send(env, { url: '/docs/' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.text).toContain('swagger');
  });
});
