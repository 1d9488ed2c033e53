import type { Core } from '../../core/core.ts';
import type { WebhookScope } from '../../core/events/webhook-admin.service.ts';
import { idFlag, type CliCommand, type Flags } from '../command.ts';

const team = { team: { type: 'string' } } as const;
const endpoint = { ...team, endpoint: { type: 'string' } } as const;

/** An operator sees every endpoint of the team it names (the team must exist). */
async function scope(core: Core, flags: Flags): Promise<WebhookScope> {
  return core.events.webhooks.operatorScope(core.operatorCtx(), idFlag(flags.team));
}

const text = (value: string | boolean | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** Operator commands for webhook endpoints (README "Webhook delivery"): the same core operations GraphQL offers integrators. */
export const webhookCommands: Record<string, CliCommand> = {
  'webhook list': {
    flags: team,
    run: async (core, flags) => ({ endpoints: await core.events.webhooks.listEndpoints(await scope(core, flags)) }),
  },
  'webhook deliveries': {
    flags: { ...endpoint, status: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, page: { type: 'string' }, 'page-size': { type: 'string' } },
    run: async (core, flags) => {
      const page = await core.events.webhooks.listDeliveries(await scope(core, flags), idFlag(flags.endpoint), {
        status: text(flags.status),
        from: text(flags.from),
        to: text(flags.to),
        page: flags.page === undefined ? undefined : idFlag(flags.page),
        pageSize: flags['page-size'] === undefined ? undefined : idFlag(flags['page-size']),
      });
      return { deliveries: page.items, pagination: page.pagination };
    },
  },
  'webhook attempts': {
    flags: { ...team, delivery: { type: 'string' } },
    run: async (core, flags) => ({ attempts: await core.events.webhooks.listAttempts(await scope(core, flags), String(idFlag(flags.delivery))) }),
  },
  'webhook replay': {
    flags: { ...endpoint, 'event-id': { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } },
    run: async (core, flags) =>
      core.events.webhooks.replay(await scope(core, flags), idFlag(flags.endpoint), { eventId: text(flags['event-id']), from: text(flags.from), to: text(flags.to) }),
  },
  'webhook rotate-secret': {
    flags: endpoint,
    run: async (core, flags) => core.events.webhooks.rotateSecret(await scope(core, flags), idFlag(flags.endpoint)),
  },
  'webhook enable': {
    flags: endpoint,
    run: async (core, flags) => core.events.webhooks.enable(await scope(core, flags), idFlag(flags.endpoint)),
  },
};
