import { readFile } from 'node:fs/promises';
import { CriticalityLevel, diff as diffGraphql } from '@graphql-inspector/core';
import { apiDiff, type Diff } from 'api-smart-diff';
import { buildSchema, type GraphQLSchema, isEnumType, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';

/**
 * The breaking-change check of docs/releases.md: schema/schema.graphql and schema/openapi.json
 * against the last release's copies in schema/released/, with a schema-diff library for each
 * (@graphql-inspector/core for GraphQL, api-smart-diff for OpenAPI). A breaking change passes only
 * when CHANGELOG.md's Unreleased section declares it: a list item starting `**Breaking:**` that
 * names the change's key in backticks (`Brand.name`, `GET /v1/brands`).
 */

/** `YYYY-MM-DD`: the day on or after which a deprecated item may be removed. */
const REMOVAL_DATE = /\b\d{4}-\d{2}-\d{2}\b/;

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
  /**
   * Removals of what the last release did not deprecate, or whose removal date has not come
   * (docs/releases.md "Deprecation"): the check fails on any, unless the changelog declares it
   * `**Breaking, not deprecated:**` (a security fix).
   */
  early: SchemaChange[];
}

export interface SchemaFiles {
  graphql: string;
  openapi: string;
}

/** A breaking change that removes something, with the deprecation reason (or description) the last release gave it. */
interface Removal {
  change: SchemaChange;
  deprecation: string | null;
}

const GRAPHQL_REMOVALS = new Set(['FIELD_REMOVED', 'ENUM_VALUE_REMOVED', 'INPUT_FIELD_REMOVED', 'FIELD_ARGUMENT_REMOVED']);

/** The deprecation reason of `Type.member` or `Type.field.argument` in a schema, or null. */
function graphqlDeprecation(schema: GraphQLSchema, path: string): string | null {
  const [typeName, member, argument] = path.split('.');
  const type = schema.getType(typeName ?? '');
  if (!type || !member) return null;
  if (isEnumType(type)) return type.getValue(member)?.deprecationReason ?? null;
  if (!isObjectType(type) && !isInterfaceType(type) && !isInputObjectType(type)) return null;
  const field = type.getFields()[member];
  if (!field) return null;
  if (argument === undefined) return field.deprecationReason ?? null;
  return 'args' in field ? (field.args.find((a) => a.name === argument)?.deprecationReason ?? null) : null;
}

/** GraphQL changes by @graphql-inspector/core's criticality, keyed by its schema path (`Type.field.argument`). */
async function graphqlChanges(released: string, current: string): Promise<{ breaking: SchemaChange[]; dangerous: SchemaChange[]; removals: Removal[] }> {
  const releasedSchema = buildSchema(released);
  const changes = await diffGraphql(releasedSchema, buildSchema(current));
  const as = (c: (typeof changes)[number]): SchemaChange => ({ api: 'graphql', key: c.path ?? c.type, message: c.message });
  const breaking = changes.filter((c) => c.criticality.level === CriticalityLevel.Breaking);
  return {
    breaking: breaking.map(as),
    dangerous: changes.filter((c) => c.criticality.level === CriticalityLevel.Dangerous).map(as),
    removals: breaking
      .filter((c) => GRAPHQL_REMOVALS.has(c.type) && c.path)
      .map((c) => ({ change: as(c), deprecation: graphqlDeprecation(releasedSchema, c.path!) })),
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
function openapiChanges(released: string, current: string): { breaking: SchemaChange[]; removals: Removal[] } {
  const diffs = apiDiff(JSON.parse(released), JSON.parse(current)).filter(
    (d) => d.path[0] !== 'components' && (d.type === 'breaking' || isUnrelatedTypeReplacement(d)),
  );
  const as = (d: Diff): SchemaChange => ({ api: 'openapi', key: openapiKey(d.path), message: d.description || `${d.action} ${d.path.join('.')}` });
  // a removed operation, parameter or property: the removed node is the diff's `before`
  const deprecation = (node: unknown): string | null => {
    const record = (typeof node === 'object' && node !== null ? node : {}) as { deprecated?: unknown; description?: unknown };
    return record.deprecated === true ? (typeof record.description === 'string' ? record.description : '') : null;
  };
  return {
    breaking: diffs.map(as),
    removals: diffs.filter(isDeprecatableRemoval).map((d) => ({ change: as(d), deprecation: deprecation(d.before) })),
  };
}

/**
 * A removed operation (`paths./v1/x.get`), parameter or schema property: what OpenAPI lets one mark
 * `deprecated`. Other breaking removals (an enum value, a `required` entry of a response) need a
 * declaration only.
 */
function isDeprecatableRemoval(d: Diff): boolean {
  if (d.action !== 'remove' || typeof d.before !== 'object' || d.before === null) return false;
  return (d.path[0] === 'paths' && d.path.length === 3) || d.path.at(-2) === 'parameters' || d.path.at(-2) === 'properties';
}

/** Whether a removal keeps the policy: deprecated in the last release, and its removal date (YYYY-MM-DD) reached by `today`. */
function removalProblem(removal: Removal, today: string): string | null {
  if (removal.deprecation === null) return 'removed without being deprecated in the last release';
  const date = REMOVAL_DATE.exec(removal.deprecation)?.[0];
  if (!date) return 'removed, but its deprecation gave no removal date';
  return date > today ? `removed before its removal date ${date}` : null;
}

/** The text of CHANGELOG.md's `## [Unreleased]` section (empty when there is none). */
export function unreleasedSection(changelog: string): string {
  const start = changelog.search(/^## \[Unreleased\]/m);
  if (start === -1) return '';
  const rest = changelog.slice(start + 1);
  const end = rest.search(/^## /m);
  return end === -1 ? rest : rest.slice(0, end);
}

/**
 * The keys the Unreleased section declares: backticked names in list items that start
 * `**Breaking:**`, or `**Breaking, not deprecated:**` (which also lifts the deprecation rule; with
 * `withoutDeprecation`, only those).
 */
export function declaredBreakingKeys(changelog: string, withoutDeprecation = false): Set<string> {
  const keys = new Set<string>();
  const marker = withoutDeprecation ? /^\s*- \*\*Breaking, not deprecated:\*\*/ : /^\s*- \*\*Breaking(?:, not deprecated)?:\*\*/;
  // an item runs to the next item, heading or blank line, so a declaration may wrap
  for (const item of unreleasedSection(changelog).split(/\n(?=\s*- |#|\s*\n)/)) {
    if (!marker.test(item)) continue;
    for (const [, key] of item.matchAll(/`([^`]+)`/g)) keys.add(key!.trim());
  }
  return keys;
}

/**
 * Compares the current schema files with the released ones and sorts breaking changes by whether
 * the changelog declares them; `today` (YYYY-MM-DD, UTC) is when removal dates are judged.
 */
export async function checkSchemaCompatibility(
  released: SchemaFiles,
  current: SchemaFiles,
  changelog: string,
  today = new Date().toISOString().slice(0, 10),
): Promise<SchemaReport> {
  const graphql = await graphqlChanges(released.graphql, current.graphql);
  const openapi = openapiChanges(released.openapi, current.openapi);
  const breaking = [...graphql.breaking, ...openapi.breaking];
  const declared = declaredBreakingKeys(changelog);
  const exempt = declaredBreakingKeys(changelog, true);
  const early: SchemaChange[] = [];
  for (const removal of [...graphql.removals, ...openapi.removals]) {
    const problem = exempt.has(removal.change.key) ? null : removalProblem(removal, today);
    if (problem) early.push({ ...removal.change, message: `${removal.change.message}: ${problem}` });
  }
  return {
    declared: breaking.filter((c) => declared.has(c.key)),
    undeclared: breaking.filter((c) => !declared.has(c.key)),
    dangerous: graphql.dangerous,
    early,
  };
}

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
  if (report.undeclared.length > 0 || report.early.length > 0) process.exitCode = 1;
}
