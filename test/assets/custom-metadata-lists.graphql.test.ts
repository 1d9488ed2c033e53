import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { graphql } from '../support/http.ts';

/**
 * docs/library.md "Custom metadata and custom fields", "Listing them within memory": a custom field
 * template may carry about 1 MB of select options, so the templates list is paged and sized
 * (GraphQL against GRAPHQL_MAX_RESPONSE_MB, the CLI against CLI_MAX_ANSWER_MB); the metadata fields
 * (at most 200 of about 40 KB) are admitted whole.
 */

let env: TestEnv;
let team: GivenTeam;
let viewer: GivenKey;
let strangerKey: string;
let cliEnv: Record<string, string>;
/** The team's template ids, by name. */
let templateIds: number[];

/** Templates near their maximal size: 50 select fields of 100 options of 100 characters (about 0.5 MB stored each). */
const TEMPLATES = 4;
const option = (field: number, n: number) => `${field}-${n}-`.padEnd(100, 'o');

beforeAll(async () => {
  env = await createTestEnv({ GRAPHQL_MAX_RESPONSE_MB: '1' });
  team = await given(env).team('Lists');
  viewer = await given(env).key(team, 'view_only');
  const other = await given(env).team('ListsOther');
  strangerKey = (await given(env).key(other, 'view_only')).key;
  cliEnv = { DATABASE_URL: env.config.databaseUrl, REDIS_URL: env.config.redisUrl, QUEUE_PREFIX: env.config.queuePrefix };
  const scope = await given(env).ctx(await given(env).key(team, 'manage'));
  templateIds = [];
  for (let t = 0; t < TEMPLATES; t++) {
    const created = await env.core.assets.customMetadata.templates.create(scope, {
      name: `Template ${t}`,
      fields: Array.from({ length: 50 }, (_, f) => ({ name: `Field ${f}`, type: 'select', options: Array.from({ length: 100 }, (_, n) => option(f, n)) })),
    });
    templateIds.push(created.id);
  }
  // and 10 metadata fields of the same size (about 10 KB each)
  for (let f = 0; f < 10; f++) {
    await env.core.assets.customMetadata.fields.create(scope, {
      name: `Meta ${f}`,
      type: 'select',
      options: Array.from({ length: 100 }, (_, n) => option(f, n)),
    });
  }
}, 120_000);
afterAll(async () => {
  await env?.close();
});

const TEMPLATES_QUERY = (args: string) => `{ customFieldTemplates${args} { id name fields { name options } } }`;

describe('custom field templates and metadata fields are listed within the memory budget', () => {
  it('GraphQL customFieldTemplates past GRAPHQL_MAX_RESPONSE_MB is refused with response_too_large, and a smaller page passes whole', async () => {
    const all = await graphql(env, viewer.key, TEMPLATES_QUERY(''));
    expect(all.body.errors[0].extensions.code).toBe('response_too_large');
    const seen: number[] = [];
    for (let page = 1; page <= TEMPLATES + 1; page++) {
      const res = await graphql(env, viewer.key, TEMPLATES_QUERY(`(page: ${page}, pageSize: 1)`));
      expect(res.body.errors).toBeUndefined();
      for (const template of res.body.data.customFieldTemplates) {
        seen.push(Number(template.id));
        expect(template.fields).toHaveLength(50);
        expect(template.fields[49].options).toEqual(Array.from({ length: 100 }, (_, n) => option(49, n)));
      }
    }
    expect(seen).toEqual(templateIds);
    await expect.poll(() => env.core.platform.answerBudget.used).toBe(0);
  });

  it("GraphQL customFieldTemplates answers another team's key with its own (none)", async () => {
    const res = await graphql(env, strangerKey, TEMPLATES_QUERY(''));
    expect(res.body.data.customFieldTemplates).toEqual([]);
  });

  it('GraphQL customFieldTemplates refuses a page or pageSize below 1 with validation_failed', async () => {
    for (const args of ['(page: 0)', '(pageSize: 0)']) {
      const res = await graphql(env, viewer.key, TEMPLATES_QUERY(args));
      expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    }
  });

  it('GraphQL libraryMetadataFields admits the fields against GRAPHQL_MAX_RESPONSE_MB: 10 fields of 10 KB pass whole under a 1 MiB cap', async () => {
    const res = await graphql(env, viewer.key, '{ libraryMetadataFields { name options } }');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.libraryMetadataFields).toHaveLength(10);
    expect(res.body.data.libraryMetadataFields[9].options).toHaveLength(100);
  });

  it('the CLI `asset field-template list` past CLI_MAX_ANSWER_MB fails with response_too_large before reading, and pages with --page and --page-size', async () => {
    const refused = await runCli(['asset', 'field-template', 'list', '--team', String(team.teamId)], { ...cliEnv, CLI_MAX_ANSWER_MB: '1' });
    expect(refused.code).toBe(1);
    expect(refused.json.error.code).toBe('response_too_large');
    const all = await runCli(['asset', 'field-template', 'list', '--team', String(team.teamId)], cliEnv);
    expect(all.code).toBe(0);
    expect(all.json.templates.map((t: { id: number }) => t.id)).toEqual(templateIds);
    const second = await runCli(['asset', 'field-template', 'list', '--team', String(team.teamId), '--page', '2', '--page-size', '1'], {
      ...cliEnv,
      CLI_MAX_ANSWER_MB: '1',
    });
    expect(second.code).toBe(0);
    expect(second.json.templates.map((t: { id: number }) => t.id)).toEqual([templateIds[1]]);
    expect(second.json.templates[0].fields[0].options).toHaveLength(100);
  });

  it('the CLI `asset metadata-field list` admits the fields against CLI_MAX_ANSWER_MB: 10 fields of 10 KB pass whole under 1 MiB', async () => {
    const listed = await runCli(['asset', 'metadata-field', 'list', '--team', String(team.teamId)], { ...cliEnv, CLI_MAX_ANSWER_MB: '1' });
    expect(listed.code).toBe(0);
    expect(listed.json.fields).toHaveLength(10);
  });
});
