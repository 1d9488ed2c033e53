import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalWorld, createApprovalWorld } from '../support/approval-world.ts';
import { given } from '../support/given.ts';
import { graphql } from '../support/http.ts';

/**
 * docs/approvals.md "Listing templates": a team may have any number of approval templates of up to
 * about 30 KB each. REST listTemplates answers them all, read and written in batches of at most 2 MB
 * of stored data; GraphQL approvalTemplates pages them (100 by default) and counts the page against
 * GRAPHQL_MAX_RESPONSE_MB.
 */

let world: ApprovalWorld;
let otherKey: string;
/** The team's template ids in listing order (oldest first). */
let ids: string[];

/** Templates of the world's team: enough near-maximal ones (about 15 KB stored each) to fill two 2 MB batches and pass a 1 MiB GraphQL cap. */
const TEMPLATES = 200;

beforeAll(async () => {
  world = await createApprovalWorld({ GRAPHQL_MAX_RESPONSE_MB: '1' });
  // 50 approvers and 50 copy recipients on each of the 20 nodes: the workflow's limits
  const members: number[] = [];
  for (let i = 0; i < 50; i++) members.push((await given(world.env).member(world.team, `m${i}`)).userId);
  const scope = { em: world.env.orm.em.fork(), teamId: world.team.teamId };
  const first = await world.env.core.approvals.templates.create(scope, {
    name: 'n'.repeat(128),
    // three UTF-8 bytes a character: 3 KB stored
    description: '€'.repeat(1024),
    workflow: {
      nodes: Array.from({ length: 20 }, (_, n) => ({
        name: `node ${n} `.padEnd(64, 'x'),
        signMode: 'and',
        approvers: members,
        copyTo: members,
        timeout: { hours: 8760, transferTo: members[0] },
      })),
    },
  });
  // the rest are copies of the first, each a millisecond younger than the one before
  await world.env.orm.em.fork().execute(
    `insert into approval_templates (id, team_id, name, description, enabled, auto_import_enabled, target_folder, workflow, created_by_id, created_at, updated_at)
     select gen_random_uuid(), team_id, left(name, 120) || lpad(g::text, 8, '0'), description, enabled, auto_import_enabled, target_folder, workflow, created_by_id,
            created_at + g * interval '1 millisecond', updated_at
       from approval_templates, generate_series(1, ?) g where id = ?`,
    [TEMPLATES - 1, first.id],
  );
  const rows = await world.env.orm.em
    .fork()
    .execute<{ id: string }[]>('select id::text from approval_templates where team_id = ? order by created_at, id', [world.team.teamId]);
  ids = rows.map((r) => r.id);
  const other = await given(world.env).team('Other');
  const stranger = (await given(world.env).member(other, 'Zed')).userId;
  await world.env.core.approvals.templates.create(
    { em: world.env.orm.em.fork(), teamId: other.teamId },
    { name: 'Theirs', workflow: { nodes: [{ name: 'A', signMode: 'or', approvers: [stranger] }] } },
  );
  otherKey = (await given(world.env).key(other, 'manage')).key;
}, 120_000);
afterAll(async () => {
  await world.close();
});

const TEMPLATE_FIELDS = 'id name description workflow { nodes { nodeId approvers copyTo timeout { hours transferTo } } }';

describe('approval templates are listed within the memory budget (docs/approvals.md "Listing templates")', () => {
  it('the stored templates are near their maximal size: the list is larger than one 2 MB batch and than a 1 MiB GraphQL answer', async () => {
    const [row] = await world.env.orm.em
      .fork()
      .execute<{ bytes: number; largest: number }[]>(
        'select sum(octet_length(workflow::text) + octet_length(description))::int as bytes, max(octet_length(workflow::text))::int as largest from approval_templates where team_id = ?',
        [world.team.teamId],
      );
    expect(row!.bytes).toBeGreaterThan(2 * 1024 * 1024);
    expect(row!.largest).toBeGreaterThan(10_000);
  });

  it('REST listTemplates answers every template of the team, whole and oldest first, written in batches as they are read', async () => {
    const res = await world.approval({ service: 'listTemplates' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: '0', message: 'success', traceId: res.headers['x-request-id'] });
    expect(Object.keys(res.body)).toEqual(['code', 'message', 'result', 'traceId']);
    expect(res.body.result.map((t: { id: string }) => t.id)).toEqual(ids);
    for (const template of res.body.result) {
      expect(template.description).toBe('€'.repeat(1024));
      expect(template.workflow.nodes).toHaveLength(20);
      expect(template.workflow.nodes[19].approvers).toHaveLength(50);
      expect(template.workflow.nodes[19].copyTo).toHaveLength(50);
    }
    // streamed: no length known before the first byte is written
    expect(res.headers['content-length']).toBeUndefined();
    // and the budget is all given back once the answer is written
    await expect.poll(() => world.env.core.platform.answerBudget.used).toBe(0);
  });

  it('REST listTemplates answers 503 memory_budget_exhausted (the open API answers a refusal by its reason) with Retry-After, while the memory budget stays taken', async () => {
    const budget = world.env.core.platform.answerBudget;
    const held = await budget.reserve(budget.totalBytes);
    try {
      const res = await world.approval({ service: 'listTemplates' });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.body).toMatchObject({ code: 'memory_budget_exhausted', result: null, traceId: res.headers['x-request-id'] });
    } finally {
      held.release();
    }
    expect(budget.used).toBe(0);
  });

  it("REST listTemplates answers another team's key with its own templates only", async () => {
    const res = await world.approval({ service: 'listTemplates' }, otherKey);
    expect(res.status).toBe(200);
    expect(res.body.result.map((t: { name: string }) => t.name)).toEqual(['Theirs']);
  });

  it('GraphQL approvalTemplates past GRAPHQL_MAX_RESPONSE_MB is refused with response_too_large, and a smaller page passes', async () => {
    const all = await graphql(world.env, world.key.key, `{ approvalTemplates { ${TEMPLATE_FIELDS} } }`);
    expect(all.body.data).toBeNull();
    expect(all.body.errors[0].extensions.code).toBe('response_too_large');
    const page = await graphql(world.env, world.key.key, `{ approvalTemplates(pageSize: 40) { ${TEMPLATE_FIELDS} } }`);
    expect(page.body.errors).toBeUndefined();
    expect(page.body.data.approvalTemplates.map((t: { id: string }) => t.id)).toEqual(ids.slice(0, 40));
    expect(page.body.data.approvalTemplates[39].workflow.nodes[19].approvers).toHaveLength(50);
    await expect.poll(() => world.env.core.platform.answerBudget.used).toBe(0);
  });

  it('GraphQL approvalTemplates pages oldest first: pages of pageSize follow each other, and a shorter page is the last', async () => {
    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const res = await graphql(world.env, world.key.key, `{ approvalTemplates(page: ${page}, pageSize: 40) { id } }`);
      expect(res.body.errors).toBeUndefined();
      const got = res.body.data.approvalTemplates.map((t: { id: string }) => t.id);
      seen.push(...got);
      if (got.length < 40) break;
    }
    expect(seen).toEqual(ids);
  });

  it('GraphQL approvalTemplates without pageSize answers a page of 100 (all of them for a team with up to 100)', async () => {
    // 200 templates in pages of 100: page 3 is past the end (with pages of 20 it would hold 20)
    const past = await graphql(world.env, world.key.key, '{ approvalTemplates(page: 3) { id } }');
    expect(past.body.errors).toBeUndefined();
    expect(past.body.data.approvalTemplates).toEqual([]);
    // and page 2 holds the 100 near-maximal ones past the 1 MiB cap
    const second = await graphql(world.env, world.key.key, '{ approvalTemplates(page: 2) { id } }');
    expect(second.body.errors[0].extensions.code).toBe('response_too_large');
    const theirs = await graphql(world.env, otherKey, '{ approvalTemplates { name } }');
    expect(theirs.body.data.approvalTemplates).toEqual([{ name: 'Theirs' }]);
  });

  it('GraphQL approvalTemplates refuses a page or pageSize below 1 with validation_failed', async () => {
    for (const args of ['page: 0', 'pageSize: 0']) {
      const res = await graphql(world.env, world.key.key, `{ approvalTemplates(${args}) { id } }`);
      expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    }
  });
});
