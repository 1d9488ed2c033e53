import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_MANY } from '../../src/core/events/deliveries.queries.ts';
import { recordEvent } from '../../src/core/outbox/outbox.ts';
import type { Ctx } from '../../src/core/platform/ctx.ts';
import { inTransaction } from '../../src/core/platform/tx.ts';
import { createEventWorld, type EventWorld } from '../support/event-world.ts';
import { given } from '../support/given.ts';

/*
 * A claim reads each delivery's event by primary key, whatever PostgreSQL believes of the outbox
 * (deliveries.queries.ts CLAIM_MANY). Statistics taken while the outbox held one event, then a
 * burst of 1,500: as a plain join on id and team, the planner read each delivery's event among all its
 * team's events on every claim, probing the (team_id, created_at) index and filtering on id.
 */

const BURST = 1_500;
const BATCH = 50;

let world: EventWorld;
let ctx: Ctx;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

function nodesOn(node: PlanNode, relation: string): PlanNode[] {
  const own = node['Relation Name'] === relation ? [node] : [];
  return [...own, ...(node.Plans ?? []).flatMap((child) => nodesOn(child, relation))];
}

async function emit(count: number): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    for (let i = 0; i < count; i++) {
      await recordEvent(tx, {
        eventType: 'MATERIAL_DELETED',
        audience: { kind: 'material' },
        orderingKey: `material:${i}`,
        fields: { payload: { materialIds: [i] } },
      });
    }
  });
}

beforeAll(async () => {
  world = await createEventWorld();
  ctx = await given(world.env).ctx(world.key);
  await world.env.core.events.subscriptions.changeMaterialSubscription(ctx, {
    callbackUrl: `http://${world.receiver.hostPort}/claim-plan`,
    eventTypes: ['MATERIAL_DELETED'],
  });
}, 60_000);
afterAll(async () => {
  await world.close();
});

describe('claiming deliveries', () => {
  it('reads each claimed delivery event by primary key even when the outbox statistics are from when it was small', async () => {
    await emit(1);
    await world.env.orm.em.fork().execute('vacuum (analyze) outbox_events, webhook_deliveries, webhook_endpoints');
    await emit(BURST);
    const newest = await world.env.orm.em
      .fork()
      .execute<{ id: string }[]>('select id::text from webhook_deliveries where team_id = ? order by id desc limit ?', [world.team.teamId, BATCH]);
    expect(newest).toHaveLength(BATCH);

    // the claim as the worker runs it (a prepared statement, planned generically after a few runs, and
    // for its values before), explained with its effects rolled back
    for (const planCacheMode of ['force_custom_plan', 'force_generic_plan']) {
      const plan = await world.env.orm.em.fork().transactional(async (em) => {
        await em.execute(`set local plan_cache_mode = ${planCacheMode}`);
        await em.execute(`prepare claim_plan_check(bigint[], int) as ${CLAIM_MANY.positional}`);
        const rows = await em.execute<{ 'QUERY PLAN': { Plan: PlanNode }[] }[]>(
          `explain (analyze, format json) execute claim_plan_check('{${newest.map((r) => r.id).join(',')}}', 60000)`,
        );
        await em.execute('deallocate claim_plan_check');
        await em.execute('rollback');
        return rows[0]!['QUERY PLAN'][0]!.Plan;
      });

      const outboxReads = nodesOn(plan, 'outbox_events');
      expect(outboxReads.length, planCacheMode).toBeGreaterThan(0);
      for (const node of outboxReads) {
        expect(node['Index Name'], planCacheMode).toBe('outbox_events_pkey');
        // one event read per claimed delivery, not every event of the team
        expect((node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'], planCacheMode).toBeLessThanOrEqual(BATCH);
      }
      expect(
        nodesOn(plan, 'webhook_deliveries').some((n) => n['Actual Rows'] * n['Actual Loops'] >= BATCH),
        planCacheMode,
      ).toBe(true);
    }
  });
});
