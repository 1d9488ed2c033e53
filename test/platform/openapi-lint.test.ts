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
