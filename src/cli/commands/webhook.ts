import { WebhookAdminService, type WebhookScope } from '../../core/events/webhook-admin.service.ts';
import { asTeam, type Cli, type Flags, idFlag, teamScope } from '../command.ts';
import type { Handlers } from '../registry.ts';

const webhooks = new WebhookAdminService();

/** An operator sees every endpoint of the team it names (the team must exist). */
async function scope(cli: Cli, flags: Flags): Promise<WebhookScope> {
  return { ...(await teamScope(cli, flags)), keyId: null };
}

const text = (value: string | boolean | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** Operator commands for webhook endpoints (docs/events.md "For integrators"): the same core operations GraphQL offers integrators. */
export const handlers: Handlers<'webhook'> = {
  'webhook list': async (cli, flags) => ({ endpoints: await webhooks.listEndpoints(await scope(cli, flags)) }),
  'webhook deliveries': async (cli, flags) => {
    const page = await webhooks.listDeliveries(await scope(cli, flags), idFlag(flags.endpoint), {
      status: text(flags.status),
      from: text(flags.from),
      to: text(flags.to),
      page: flags.page === undefined ? undefined : idFlag(flags.page),
      pageSize: flags['page-size'] === undefined ? undefined : idFlag(flags['page-size']),
    });
    return { deliveries: page.items, pagination: page.pagination };
  },
  'webhook attempts': async (cli, flags) => ({ attempts: await webhooks.listAttempts(await scope(cli, flags), String(idFlag(flags.delivery))) }),
  'webhook replay': async (cli, flags) =>
    webhooks.replay(await scope(cli, flags), idFlag(flags.endpoint), { eventId: text(flags['event-id']), from: text(flags.from), to: text(flags.to) }),
  'webhook rotate-secret': async (cli, flags) => webhooks.rotateSecret(await scope(cli, flags), idFlag(flags.endpoint)),
  'webhook enable': async (cli, flags) => webhooks.enable(await scope(cli, flags), idFlag(flags.endpoint)),
  'webhook test': async (cli, flags) => {
    // as the system, so the test event names the operator's job as its actor
    return webhooks.sendTestEvent({ ...(await asTeam(cli, flags)), keyId: null }, idFlag(flags.endpoint));
  },
};
