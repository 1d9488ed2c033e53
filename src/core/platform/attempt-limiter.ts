import { Redis } from 'ioredis';
import { DomainError } from './errors.ts';

/**
 * Counts failed attempts per key in Redis, so several API processes share the count (issue 12 item
 * 7: share passwords). Past `limit` failures within `windowSeconds` the key is refused with 429
 * `too_many_attempts` and a Retry-After of the window's rest. Redis down refuses too (503
 * service_unavailable): a limiter that failed open would allow unlimited guessing.
 */
export class AttemptLimiter {
  private client: Redis | null = null;
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

  /** 429 too_many_attempts when `key` has used up its failures in the current window. */
  async check(key: string): Promise<void> {
    const [count, ttl] = await this.call((redis) => Promise.all([redis.get(this.prefix + key), redis.ttl(this.prefix + key)]));
    if (Number(count ?? 0) >= this.limit) {
      throw new DomainError('too_many_attempts', `Too many failed attempts; retry in ${Math.max(ttl, 1)} s`, undefined, { retryAfterSeconds: Math.max(ttl, 1) });
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
  }

  private async call<T>(work: (redis: Redis) => Promise<T>): Promise<T> {
    // no offline queue and one try: a request waits on Redis for a second at most
    if (!this.client) {
      this.client = new Redis(this.redisUrl, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 1000, commandTimeout: 1000 });
      // failures reach the callers as service_unavailable; the client's own event would be unhandled
      this.client.on('error', () => {});
    }
    try {
      if (this.client.status === 'wait' || this.client.status === 'end') await this.client.connect();
      return await work(this.client);
    } catch (e) {
      if (e instanceof DomainError) throw e;
      throw new DomainError('service_unavailable', 'The attempt counter is unavailable; retry later');
    }
  }
}
