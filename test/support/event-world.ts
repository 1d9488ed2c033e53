import pino from 'pino';
import { type RunningWorkers, startWorkers } from '../../workers/index.ts';
import { createTestEnv, type TestEnv } from './env.ts';
import { type GivenKey, type GivenTeam, given } from './given.ts';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.ts';

/** A test world for events: a receiver on 127.0.0.1 allowed through the guard, a team with the capability, workers running. */
export interface EventWorld {
  env: TestEnv;
  receiver: WebhookReceiver;
  team: GivenTeam;
  key: GivenKey;
  workers: RunningWorkers | null;
  startWorkers(): Promise<RunningWorkers>;
  close(): Promise<void>;
}

/** Short retries so a test sees several attempts within seconds (README: WEBHOOK_RETRY_SCHEDULE). */
export const FAST_RETRIES = '200ms,400ms,600ms';

export async function createEventWorld(overrides: Record<string, string> = {}, alsoAllow: string[] = []): Promise<EventWorld> {
  const receiver = await startReceiver();
  const env = await createTestEnv({
    OUTBOUND_ALLOW_HOSTS: [receiver.hostPort, ...alsoAllow].join(','),
    WEBHOOK_RETRY_SCHEDULE: FAST_RETRIES,
    RELAY_INTERVAL_MS: '50',
    ...overrides,
  });
  const team = await given(env).team('Events');
  await env.core.access.enableSubscriptions(env.core.operatorCtx(), { teamId: team.teamId });
  const key = await given(env).key(team, 'manage');
  const world: EventWorld = {
    env,
    receiver,
    team,
    key,
    workers: null,
    async startWorkers() {
      world.workers = await startWorkers({ core: env.core, config: env.config, queues: env.queues, metrics: env.metrics, logger: pino({ level: 'silent' }) });
      return world.workers;
    },
    async close() {
      await world.workers?.close();
      await env.close();
      await receiver.close();
    },
  };
  return world;
}
