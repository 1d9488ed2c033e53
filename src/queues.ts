import { type ConnectionOptions, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Config } from './config.ts';

/** Every BullMQ queue of Shelf; workers/registry.ts maps each to exactly one processor. */
export const QUEUE_NAMES = ['maintenance', 'webhook-delivery', 'approval-timeout'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/**
 * BullMQ's connection options for REDIS_URL. ioredis parses the URL (user, password, database,
 * `rediss:` for TLS) as it does for every other client here: a client made only to parse it,
 * never connected.
 */
export function redisConnection(config: Pick<Config, 'redisUrl'>): ConnectionOptions {
  const { host, port, username, password, db, tls } = new Redis(config.redisUrl, { lazyConnect: true }).options;
  // BullMQ workers block on Redis; they must never give up a command
  return { host, port, username, password, db, tls, maxRetriesPerRequest: null };
}

export class Queues {
  readonly byName: Map<QueueName, Queue>;
  /** A separate client for health checks: it fails fast instead of waiting for Redis like BullMQ's. */
  private readonly health: Redis;

  constructor(config: Pick<Config, 'redisUrl' | 'queuePrefix'>) {
    const connection = redisConnection(config);
    this.byName = new Map(QUEUE_NAMES.map((name) => [name, new Queue(name, { connection, prefix: config.queuePrefix })]));
    this.health = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
    // Redis down shows as /readyz 503 (ping); without a listener ioredis prints every reconnect failure to stderr
    this.health.on('error', () => {});
  }

  /** True when Redis answers a PING. */
  async ping(): Promise<boolean> {
    try {
      return (await this.health.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  get(name: QueueName): Queue {
    return this.byName.get(name)!;
  }

  all(): Queue[] {
    return [...this.byName.values()];
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((q) => q.close()));
    this.health.disconnect();
  }
}
