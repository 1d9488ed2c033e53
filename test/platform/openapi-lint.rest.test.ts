import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import spectralCore from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';

const { Spectral, Document } = spectralCore;
const OPENAPI = fileURLToPath(new URL('../../schema/openapi.json', import.meta.url));

describe('the OpenAPI document (schema/openapi.json, served at /v1/openapi.json)', () => {
  it("has no finding of Spectral's spectral:oas ruleset", async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as never, 'recommended']] } as never);
    const text = await readFile(OPENAPI, 'utf8');
    const findings = await spectral.run(new Document(text, Json, OPENAPI) as never);
    const described = findings.map((f) => `${f.code} at ${f.path.join('.')}: ${f.message}`);
    expect(described).toEqual([]);
  });
});

describe('the OpenAPI document declares the failures a client can act on', () => {
  type Operation = { operationId: string; responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> };
  const operations = async (): Promise<Array<{ path: string; operation: Operation }>> => {
    const document = JSON.parse(await readFile(OPENAPI, 'utf8')) as { paths: Record<string, Record<string, Operation>> };
    return Object.entries(document.paths).flatMap(([path, methods]) => Object.values(methods).map((operation) => ({ path, operation })));
  };
  const envelopeOf = (operation: Operation, status: string) => operation.responses[status]?.content?.['application/json']?.schema?.$ref ?? '';

  it('declares 503 on every operation of /v1, /open and /approval, in the envelope of its area', async () => {
    const all = await operations();
    expect(all.length).toBeGreaterThan(30);
    for (const { path, operation } of all) {
      const envelope = path.startsWith('/v1') ? 'ErrorEnvelope' : 'OpenErrorEnvelope';
      expect(envelopeOf(operation, '503'), `${operation.operationId} 503`).toMatch(new RegExp(`${envelope}$`));
    }
  });

  it('declares 429 on searchShare (share-password throttling) in the open envelope', async () => {
    const searchShare = (await operations()).find(({ operation }) => operation.operationId === 'searchShare')!;
    expect(envelopeOf(searchShare.operation, '429')).toMatch(/OpenErrorEnvelope$/);
  });
});
