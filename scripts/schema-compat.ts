import { readFile } from 'node:fs/promises';
import { CriticalityLevel, diff as diffGraphql } from '@graphql-inspector/core';
import { apiDiff, type Diff } from 'api-smart-diff';
import { buildSchema } from 'graphql';

/**
 * The breaking-change check of docs/releases.md: schema/schema.graphql and schema/openapi.json
 * against the last release's copies in schema/released/, with a schema-diff library for each
 * (@graphql-inspector/core for GraphQL, api-smart-diff for OpenAPI). A breaking change passes only
 * when CHANGELOG.md's Unreleased section declares it: a list item starting `**Breaking:**` that
 * names the change's key in backticks (`Brand.name`, `GET /v1/brands`).
 */

/** One change a client of the last release may notice. */
export interface SchemaChange {
  api: 'graphql' | 'openapi';
  /** What a changelog entry names to declare it: a GraphQL schema path or an OpenAPI operation (`GET /v1/brands`). */
  key: string;
  message: string;
}

export interface SchemaReport {
  /** Breaking changes the changelog declares. */
  declared: SchemaChange[];
  /** Breaking changes it does not: the check fails on any. */
  undeclared: SchemaChange[];
  /** Changes that may break some clients (a new enum value, a changed default): shown, never failing. */
  dangerous: SchemaChange[];
}

export interface SchemaFiles {
  graphql: string;
  openapi: string;
}

/** GraphQL changes by @graphql-inspector/core's criticality, keyed by its schema path (`Type.field.argument`). */
async function graphqlChanges(released: string, current: string): Promise<{ breaking: SchemaChange[]; dangerous: SchemaChange[] }> {
  const changes = await diffGraphql(buildSchema(released), buildSchema(current));
  const as = (c: (typeof changes)[number]): SchemaChange => ({ api: 'graphql', key: c.path ?? c.type, message: c.message });
  return {
    breaking: changes.filter((c) => c.criticality.level === CriticalityLevel.Breaking).map(as),
    dangerous: changes.filter((c) => c.criticality.level === CriticalityLevel.Dangerous).map(as),
  };
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** The operation (`GET /v1/brands`) or path (`/v1/brands`) a diff under `paths` falls in; the JSON path otherwise. */
function openapiKey(path: Array<string | number>): string {
  if (path[0] !== 'paths' || path[1] === undefined) return path.join('.');
  const method = path[2];
  return typeof method === 'string' && METHODS.has(method) ? `${method.toUpperCase()} ${path[1]}` : String(path[1]);
}

/**
 * A `type` replaced by an unrelated type (string → integer) breaks clients in either direction.
 * api-smart-diff reverses its request rules for responses, so such a replacement in a response
 * comes out non-breaking; only integer → number in a request and number → integer in a
 * response are widenings a client cannot notice.
 */
function isUnrelatedTypeReplacement(d: Diff): boolean {
  if (d.action !== 'replace' || d.path.at(-1) !== 'type' || typeof d.before !== 'string' || typeof d.after !== 'string') return false;
  const inResponse = d.path.includes('responses');
  const widening = inResponse ? d.before === 'number' && d.after === 'integer' : d.before === 'integer' && d.after === 'number';
  return !widening;
}

/**
 * OpenAPI changes by api-smart-diff's classification, under `paths` only: every schema a client
 * sees is reached through an operation, where the library judges it as a request or a response
 * (a narrower response type is compatible, a narrower request type is not). The same schema under
 * `components` is judged without that context, so those diffs are left out rather than doubled.
 */
function openapiChanges(released: string, current: string): SchemaChange[] {
  const diffs = apiDiff(JSON.parse(released), JSON.parse(current));
  return diffs
    .filter((d) => d.path[0] !== 'components' && (d.type === 'breaking' || isUnrelatedTypeReplacement(d)))
    .map((d) => ({ api: 'openapi' as const, key: openapiKey(d.path), message: d.description || `${d.action} ${d.path.join('.')}` }));
}

/** The text of CHANGELOG.md's `## [Unreleased]` section (empty when there is none). */
export function unreleasedSection(changelog: string): string {
  const start = changelog.search(/^## \[Unreleased\]/m);
  if (start === -1) return '';
  const rest = changelog.slice(start + 1);
  const end = rest.search(/^## /m);
  return end === -1 ? rest : rest.slice(0, end);
}

/** The keys the Unreleased section declares: backticked names in list items that start `**Breaking:**`. */
export function declaredBreakingKeys(changelog: string): Set<string> {
  const keys = new Set<string>();
  // an item runs to the next item, heading or blank line, so a declaration may wrap
  for (const item of unreleasedSection(changelog).split(/\n(?=\s*- |#|\s*\n)/)) {
    if (!/^\s*- \*\*Breaking:\*\*/.test(item)) continue;
    for (const [, key] of item.matchAll(/`([^`]+)`/g)) keys.add(key!.trim());
  }
  return keys;
}

/** Compares the current schema files with the released ones and sorts breaking changes by whether the changelog declares them. */
export async function checkSchemaCompatibility(released: SchemaFiles, current: SchemaFiles, changelog: string): Promise<SchemaReport> {
  const graphql = await graphqlChanges(released.graphql, current.graphql);
  const breaking = [...graphql.breaking, ...openapiChanges(released.openapi, current.openapi)];
  const declared = declaredBreakingKeys(changelog);
  return {
    declared: breaking.filter((c) => declared.has(c.key)),
    undeclared: breaking.filter((c) => !declared.has(c.key)),
    dangerous: graphql.dangerous,
  };
}

/** `YYYY-MM-DD`: the day on or after which a deprecated item may be removed. */
const REMOVAL_DATE = /\b\d{4}-\d{2}-\d{2}\b/;

/**
 * Deprecated items that do not say when they go (docs/releases.md "Deprecation"): GraphQL
 * `@deprecated` without a date in its reason, OpenAPI objects with `deprecated: true` without a
 * date in their description.
 */
export function undatedDeprecations(files: SchemaFiles): string[] {
  const found: string[] = [];
  const schema = buildSchema(files.graphql);
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    const members: Array<{
      name: string;
      deprecationReason?: string | null | undefined;
      args?: ReadonlyArray<{ name: string; deprecationReason?: string | null | undefined }>;
    }> = 'getFields' in type ? Object.values(type.getFields()) : 'getValues' in type ? [...type.getValues()] : [];
    for (const member of members) {
      if (member.deprecationReason != null && !REMOVAL_DATE.test(member.deprecationReason)) found.push(`${type.name}.${member.name}`);
      for (const arg of member.args ?? []) {
        if (arg.deprecationReason != null && !REMOVAL_DATE.test(arg.deprecationReason)) found.push(`${type.name}.${member.name}(${arg.name}:)`);
      }
    }
  }
  // arrays are walked as objects with index keys
  const walk = (node: unknown, path: string): void => {
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    if (record.deprecated === true && !(typeof record.description === 'string' && REMOVAL_DATE.test(record.description))) found.push(path || '/');
    for (const [key, value] of Object.entries(record)) walk(value, `${path}/${key}`);
  };
  walk(JSON.parse(files.openapi), '');
  return found;
}

const ROOT = new URL('../', import.meta.url);
const read = (path: string) => readFile(new URL(path, ROOT), 'utf8');

/** The repository's own files: schema/released/ against schema/, with CHANGELOG.md. */
export async function checkRepository(): Promise<SchemaReport> {
  const [releasedGraphql, releasedOpenapi, graphql, openapi, changelog] = await Promise.all([
    read('schema/released/schema.graphql'),
    read('schema/released/openapi.json'),
    read('schema/schema.graphql'),
    read('schema/openapi.json'),
    read('CHANGELOG.md'),
  ]);
  return checkSchemaCompatibility({ graphql: releasedGraphql, openapi: releasedOpenapi }, { graphql, openapi }, changelog);
}

// `npm run -s schema:check`: the report as JSON, exit 1 on an undeclared breaking change
if (import.meta.url === `file://${process.argv[1]}`) {
  const report = await checkRepository();
  console.log(JSON.stringify(report, null, 2));
  if (report.undeclared.length > 0) process.exitCode = 1;
}
