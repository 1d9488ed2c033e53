import { readFile } from 'node:fs/promises';
import { type FieldDefinitionNode, type InputValueDefinitionNode, Kind, type NamedTypeNode, parse, print, type TypeNode, visit } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkRepository, checkSchemaCompatibility, declaredBreakingKeys, type SchemaFiles, undatedDeprecations } from '../../scripts/schema-compat.ts';

/*
 * The release checks of docs/releases.md: the API schemas may not break the last release's
 * clients unless CHANGELOG.md's Unreleased section declares it; the changelog, package.json and
 * schema/released/ agree on the last release; deprecated items carry a removal date. Deliberate
 * breaking changes are made to copies of the released schemas here, to show the check catches
 * each kind the issue names (a removed field, a narrowed type, a new required argument) and lets
 * a declared one pass.
 */

const read = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8');

let released: SchemaFiles;
let changelog: string;
let packageVersion: string;

beforeAll(async () => {
  released = { graphql: await read('schema/released/schema.graphql'), openapi: await read('schema/released/openapi.json') };
  changelog = await read('CHANGELOG.md');
  packageVersion = JSON.parse(await read('package.json')).version;
});

/** A changelog whose Unreleased section holds `items`, above a released section. */
function changelogWith(...items: string[]): string {
  return `# Changelog\n\n## [Unreleased]\n\n### Changed\n\n${items.join('\n')}\n\n## [1.0.0] - 2026-11-28\n\n### Added\n\n- Everything.\n`;
}

const named = (name: string): NamedTypeNode => ({ kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: name } });
const nonNull = (type: NamedTypeNode): TypeNode => ({ kind: Kind.NON_NULL_TYPE, type });

/** The released GraphQL schema with `edit` applied to the fields of `typeName`. */
function editGraphqlType(typeName: string, edit: (fields: readonly FieldDefinitionNode[]) => FieldDefinitionNode[]): string {
  const document = visit(parse(released.graphql), {
    ObjectTypeDefinition: (node) => (node.name.value === typeName ? { ...node, fields: edit(node.fields ?? []) } : undefined),
  });
  return print(document);
}

function editOpenapi(edit: (document: any) => void): string {
  const document = JSON.parse(released.openapi);
  edit(document);
  return JSON.stringify(document);
}

describe('the breaking-change check against the last release (docs/releases.md)', () => {
  it("finds no breaking change of the checked-in schemas that CHANGELOG.md's Unreleased section does not declare", async () => {
    const report = await checkRepository();
    // the message names each undeclared change and what to do
    expect(report.undeclared, 'declare each under Unreleased as "- **Breaking:** `key` ..." or undo it (docs/releases.md)').toEqual([]);
    expect(report.early, 'deprecate first, with a removal date, and remove in a later release (docs/releases.md "Deprecation")').toEqual([]);
  });

  describe('GraphQL, with @graphql-inspector/core', () => {
    it('catches a removed field, a field whose type no longer matches, and a new required argument; passes when the changelog names them', async () => {
      let graphql = editGraphqlType('Brand', (fields) =>
        fields
          .filter((f) => f.name.value !== 'sortOrder')
          // non-null String to nullable: clients that rely on a value break
          .map((f) => (f.name.value === 'name' ? { ...f, type: named('String') } : f)),
      );
      const required: InputValueDefinitionNode = {
        kind: Kind.INPUT_VALUE_DEFINITION,
        name: { kind: Kind.NAME, value: 'region' },
        type: nonNull(named('String')),
      };
      graphql = print(
        visit(parse(graphql), {
          ObjectTypeDefinition: (node) =>
            node.name.value === 'Query'
              ? { ...node, fields: node.fields?.map((f) => (f.name.value === 'brands' ? { ...f, arguments: [...(f.arguments ?? []), required] } : f)) }
              : undefined,
        }),
      );
      const current = { graphql, openapi: released.openapi };

      const undeclared = await checkSchemaCompatibility(released, current, changelogWith('- Nothing breaking, supposedly.'));
      expect(undeclared.undeclared.map((c) => c.key).sort()).toEqual(['Brand.name', 'Brand.sortOrder', 'Query.brands.region']);
      expect(undeclared.undeclared.every((c) => c.api === 'graphql' && c.message.length > 0)).toBe(true);

      const declared = await checkSchemaCompatibility(
        released,
        current,
        changelogWith(
          '- **Breaking:** `Brand.sortOrder` is removed and `Brand.name` may be null.',
          '- **Breaking:** `Query.brands.region` is required: brands are listed',
          '  per region.',
        ),
      );
      expect(declared.undeclared).toEqual([]);
      expect(declared.declared.map((c) => c.key).sort()).toEqual(['Brand.name', 'Brand.sortOrder', 'Query.brands.region']);
      // declared, but sortOrder was never deprecated: the removal is early
      expect(declared.early.map((c) => [c.key, c.message])).toEqual([
        ['Brand.sortOrder', expect.stringContaining('removed without being deprecated in the last release')],
      ]);
    });

    it('passes an addition: a new nullable field', async () => {
      const graphql = editGraphqlType('Brand', (fields) => [
        ...fields,
        {
          kind: Kind.FIELD_DEFINITION,
          name: { kind: Kind.NAME, value: 'slogan' },
          type: named('String'),
          description: { kind: Kind.STRING, value: 'A slogan.' },
        },
      ]);
      const report = await checkSchemaCompatibility(released, { graphql, openapi: released.openapi }, changelogWith('- Brands have slogans.'));
      expect(report.undeclared).toEqual([]);
      expect(report.declared).toEqual([]);
    });
  });

  describe('OpenAPI, with api-smart-diff', () => {
    it('catches a removed operation, a new required parameter, a narrowed request field and a changed response type; passes when the changelog names them', async () => {
      const openapi = editOpenapi((document) => {
        delete document.paths['/v1/brands/{id}'].delete;
        document.paths['/v1/brands/{id}'].get.parameters.push({ name: 'region', in: 'query', required: true, schema: { type: 'string' } });
        // a narrowed request: names up to 1024 characters before, 10 now
        document.components.schemas.BrandCreate.properties.name.maxLength = 10;
        // a response field of another type: clients parsing a string get a number
        document.components.schemas.Brand.properties.code.type = 'integer';
      });
      const current = { graphql: released.graphql, openapi };

      const report = await checkSchemaCompatibility(released, current, changelogWith('- **Breaking:** `GET /v1/brands/{id}` needs `region`.'));
      const keys = new Set(report.undeclared.map((c) => c.key));
      // the response type change shows in every operation answering a Brand
      expect([...keys].sort()).toEqual(['DELETE /v1/brands/{id}', 'GET /v1/brands', 'PATCH /v1/brands/{id}', 'POST /v1/brands']);
      expect(report.undeclared.find((c) => c.key === 'POST /v1/brands' && /Request Body/.test(c.message))).toBeDefined();
      expect(report.declared.map((c) => c.key)).toContain('GET /v1/brands/{id}');

      const all = await checkSchemaCompatibility(
        released,
        current,
        changelogWith(
          '- **Breaking:** `DELETE /v1/brands/{id}` is removed; `GET /v1/brands/{id}` needs `region`.',
          '- **Breaking:** brand codes are numbers in `GET /v1/brands`, `POST /v1/brands`, `PATCH /v1/brands/{id}`; names at most 10 characters.',
        ),
      );
      expect(all.undeclared).toEqual([]);
    });

    it('passes additions: a new optional parameter and a new response property', async () => {
      const openapi = editOpenapi((document) => {
        document.paths['/v1/brands'].get.parameters.push({ name: 'region', in: 'query', required: false, schema: { type: 'string' } });
        document.components.schemas.Brand.properties.slogan = { type: 'string' };
      });
      const report = await checkSchemaCompatibility(released, { graphql: released.graphql, openapi }, changelogWith('- Brands have slogans.'));
      expect(report.undeclared).toEqual([]);
    });
  });

  describe('a removal needs a deprecation with a date that has come (docs/releases.md "Deprecation")', () => {
    /** The released schemas with Brand.website and GET /v1/brands deprecated until `date`. */
    function deprecatedUntil(date: string): SchemaFiles {
      return {
        graphql: released.graphql.replace(
          /^(type Brand \{[\s\S]*?\n {2}website: String)\n/m,
          `$1 @deprecated(reason: "Use links. Removed on or after ${date}.")\n`,
        ),
        openapi: editOpenapi((document) => {
          document.paths['/v1/brands'].get.deprecated = true;
          document.paths['/v1/brands'].get.description += ` Deprecated: removed on or after ${date}.`;
        }),
      };
    }
    /** Those two removed. */
    const removed = (): SchemaFiles => ({
      graphql: editGraphqlType('Brand', (fields) => fields.filter((f) => f.name.value !== 'website')),
      openapi: editOpenapi((document) => {
        delete document.paths['/v1/brands'].get;
      }),
    });
    const declaring = changelogWith('- **Breaking:** `Brand.website` and `GET /v1/brands` are removed, deprecated in 1.0.0.');

    it('passes the removal of items deprecated until a date that has passed', async () => {
      const before = deprecatedUntil('2026-06-01');
      expect(before.graphql).toContain('@deprecated(reason: "Use links. Removed on or after 2026-06-01.")');
      const report = await checkSchemaCompatibility(before, removed(), declaring, '2026-11-28');
      expect(report.undeclared).toEqual([]);
      expect(report.declared.map((c) => c.key).sort()).toEqual(['Brand.website', 'GET /v1/brands']);
      expect(report.early).toEqual([]);
    });

    it('refuses it before the date, and without a deprecation, unless declared as not deprecated', async () => {
      const tooSoon = await checkSchemaCompatibility(deprecatedUntil('2027-06-01'), removed(), declaring, '2026-11-28');
      expect(tooSoon.early.map((c) => [c.key, c.message.slice(c.message.lastIndexOf(': ') + 2)]).sort()).toEqual([
        ['Brand.website', 'removed before its removal date 2027-06-01'],
        ['GET /v1/brands', 'removed before its removal date 2027-06-01'],
      ]);
      const never = await checkSchemaCompatibility(released, removed(), declaring, '2026-11-28');
      expect(never.early.map((c) => c.key).sort()).toEqual(['Brand.website', 'GET /v1/brands']);
      const security = changelogWith('- **Breaking, not deprecated:** `Brand.website` and `GET /v1/brands` leaked data; removed at once.');
      const exempt = await checkSchemaCompatibility(released, removed(), security, '2026-11-28');
      expect(exempt.undeclared).toEqual([]);
      expect(exempt.early).toEqual([]);
    });
  });

  describe('what counts as a declaration', () => {
    it('only **Breaking:** items of the Unreleased section, by the keys they name in backticks', () => {
      const text = `# Changelog

## [Unreleased]

### Removed

- **Breaking:** \`Brand.sortOrder\` and
  \`GET /v1/brands\`, wrapped onto a second line.
- Mentions \`Brand.website\` without the marker.

## [1.0.0] - 2026-11-28

- **Breaking:** \`Brand.code\` was declared for an earlier release.
`;
      expect([...declaredBreakingKeys(text)].sort()).toEqual(['Brand.sortOrder', 'GET /v1/brands']);
      expect(declaredBreakingKeys('# Changelog\n\n## [1.0.0] - 2026-11-28\n\n- **Breaking:** `Brand.code`\n').size).toBe(0);
    });
  });
});

/** `## [x.y.z] - date` headings of the changelog, newest first. */
function releases(text: string): Array<{ version: string; body: string }> {
  const parts = text.split(/^## /m).slice(1);
  return parts.filter((p) => !p.startsWith('[Unreleased]')).map((p) => ({ version: /^\[([^\]]+)\]/.exec(p)?.[1] ?? p.split('\n')[0]!, body: p }));
}

const semver = (v: string) => v.split('-')[0]!.split('.').map(Number) as [number, number, number];
const compare = (a: string, b: string) => {
  const [x, y] = [semver(a), semver(b)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

describe('CHANGELOG.md, package.json and schema/released/ agree (docs/releases.md)', () => {
  it('has an Unreleased section first, then releases as "## [x.y.z] - YYYY-MM-DD", newest first', () => {
    const headings = [...changelog.matchAll(/^## (.*)$/gm)].map((m) => m[1]!);
    expect(headings[0]).toBe('[Unreleased]');
    const versions = headings.slice(1);
    expect(versions.length).toBeGreaterThan(0);
    for (const heading of versions) expect(heading).toMatch(/^\[\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?\] - \d{4}-\d{2}-\d{2}$/);
    const numbers = releases(changelog).map((r) => r.version);
    expect([...numbers].sort((a, b) => compare(b, a))).toEqual(numbers);
  });

  it("package.json's version is the newest release, and so is the released OpenAPI document's info.version", async () => {
    const newest = releases(changelog)[0]!.version;
    expect(packageVersion).toBe(newest);
    expect(JSON.parse(released.openapi).info.version).toBe(newest);
  });

  it('a release that declares a breaking change bumps the major version', () => {
    const list = releases(changelog);
    for (const [i, release] of list.entries()) {
      const previous = list[i + 1];
      if (!previous || !/^\s*- \*\*Breaking:\*\*/m.test(release.body)) continue;
      expect(semver(release.version)[0], `${release.version} declares a breaking change`).toBeGreaterThan(semver(previous.version)[0]);
    }
  });
});

describe('deprecation with a removal date (docs/releases.md "Deprecation")', () => {
  it('every deprecated GraphQL item and OpenAPI object in schema/ says when it goes', async () => {
    const current = { graphql: await read('schema/schema.graphql'), openapi: await read('schema/openapi.json') };
    expect(undatedDeprecations(current)).toEqual([]);
  });

  it('finds a @deprecated reason and a deprecated operation without a date, and accepts them with one', () => {
    const undated = {
      graphql: editGraphqlType('Brand', (fields) =>
        fields.map((f) =>
          f.name.value === 'website'
            ? {
                ...f,
                directives: [
                  {
                    kind: Kind.DIRECTIVE,
                    name: { kind: Kind.NAME, value: 'deprecated' },
                    arguments: [{ kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: 'reason' }, value: { kind: Kind.STRING, value: 'Use links.' } }],
                  },
                ],
              }
            : f,
        ),
      ),
      openapi: editOpenapi((document) => {
        document.paths['/v1/brands'].get.deprecated = true;
      }),
    };
    expect(undatedDeprecations(undated)).toEqual(['Brand.website', '/paths//v1/brands/get']);

    const dated = {
      graphql: undated.graphql.replace('"Use links."', '"Use links. Removed on or after 2027-06-01."'),
      openapi: editOpenapi((document) => {
        document.paths['/v1/brands'].get.deprecated = true;
        document.paths['/v1/brands'].get.description += ' Deprecated in 1.1.0: removed on or after 2027-06-01; use GET /v2/brands.';
      }),
    };
    expect(undatedDeprecations(dated)).toEqual([]);
  });
});
