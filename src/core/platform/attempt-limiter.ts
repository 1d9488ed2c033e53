import { Redis } from 'ioredis';
import { DomainError } from './errors.ts';

/** How long a call waits for the connection (at start-up or while Redis comes back) before 503. */
const CONNECTION_WAIT_MS = 1000;

/**
 * Counts failed attempts per key in Redis, so several API processes share the count (share
 * passwords). Past `limit` failures within `windowSeconds` the key is refused with 429
 * `too_many_attempts` and a Retry-After of the window's rest. Redis down refuses too (503
 * service_unavailable): a limiter that failed open would allow unlimited guessing.
 *
 * The service connects at start-up (`connect`); a process that never did (the CLI) connects on
 * first use. Either way a call made while the connection is being opened or re-opened waits for it
 * (a second at most) instead of failing: without an offline queue ioredis refuses a command sent
 * before the connection is ready.
 */
export class AttemptLimiter {
  private client: Redis | null = null;
  /** Settles when the client is ready; replaced by a pending one when the connection drops. */
  private connection = Promise.withResolvers<void>();
  private connected = false;
  private readonly redisUrl: string;
  private readonly prefix: string;
  readonly limit: number;
  readonly windowSeconds: number;

  constructor(options: { redisUrl: string; prefix: string; limit?: number; windowSeconds?: number }) {
    this.redisUrl = options.redisUrl;
    this.prefix = `${options.prefix}:attempts:`;
    this.limit = options.limit ?? 10;
    this.windowSeconds = options.windowSeconds ?? 60;
  }

  /**
   * Opens the connection (start-up) and waits until it is ready or the wait ran out; true when
   * ready. When Redis is down the client keeps reconnecting, calls answer 503 meanwhile and
   * `ping` reports it (/readyz).
   */
  async connect(): Promise<boolean> {
    return this.waitForConnection(this.open()).then(
      () => true,
      () => false,
    );
  }

  /** Whether the connection is up and Redis answers now (readiness: a call would not wait or fail). */
  async ping(): Promise<boolean> {
    const client = this.open();
    if (!this.connected) return false;
    return client.ping().then(
      (answer) => answer === 'PONG',
      () => false,
    );
  }

  /** 429 too_many_attempts when `key` has used up its failures in the current window. */
  async check(key: string): Promise<void> {
    const [count, ttl] = await this.call((redis) => Promise.all([redis.get(this.prefix + key), redis.ttl(this.prefix + key)]));
    if (Number(count ?? 0) >= this.limit) {
      throw new DomainError('too_many_attempts', `Too many failed attempts; retry in ${Math.max(ttl, 1)} s`, undefined, {
        retryAfterSeconds: Math.max(ttl, 1),
      });
    }
  }

  /** Counts one failure of `key`; the window starts with the first. */
  async recordFailure(key: string): Promise<void> {
    await this.call(async (redis) => {
      const count = await redis.incr(this.prefix + key);
      if (count === 1) await redis.expire(this.prefix + key, this.windowSeconds);
    });
  }

  async close(): Promise<void> {
    this.client?.disconnect();
    this.client = null;
    this.connected = false;
    this.connection = Promise.withResolvers<void>();
  }

  /** The client, created (and connecting) on first need. */
  private open(): Redis {
    if (this.client) {
      if (this.client.status === 'end') this.client.connect().catch(() => {});
      return this.client;
    }
    // no offline queue and one try: a command fails at once when Redis is gone, instead of queueing
    const client = new Redis(this.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 1000, commandTimeout: 1000 });
    // failures reach the callers as service_unavailable; the client's own event would be unhandled
    client.on('error', () => {});
    // a closed client's late events must not touch the state of the one that replaced it
    client.on('ready', () => {
      if (this.client !== client) return;
      this.connected = true;
      this.connection.resolve();
    });
    client.on('close', () => {
      if (this.client !== client || !this.connected) return;
      this.connected = false;
      this.connection = Promise.withResolvers<void>();
    });
    this.client = client;
    return client;
  }

  private async waitForConnection(client: Redis): Promise<Redis> {
    if (this.connected) return client;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('not connected')), CONNECTION_WAIT_MS)));
    try {
      await Promise.race([this.connection.promise, late]);
      return client;
    } finally {
      clearTimeout(timer);
    }
  }

  private async call<T>(work: (redis: Redis) => Promise<T>): Promise<T> {
    try {
      return await work(await this.waitForConnection(this.open()));
    } catch (e) {
      if (e instanceof DomainError) throw e;
      throw new DomainError('service_unavailable', 'The attempt counter is unavailable; retry later');
    }
  }
}
