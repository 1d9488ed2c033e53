import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { keyStates } from '../access/keys.queries.ts';
import type { KeyActor, UnitOfWork } from '../platform/ctx.ts';
import { DomainError } from '../platform/errors.ts';
import { type LiveRow, positionWindow, rowsAfter, teamHeads } from './live-events.queries.ts';
import { type LiveMessage, LiveRelay, teamChannel } from './live-relay.ts';
import { LiveSubscription, StreamEnded, type StreamScope } from './live-stream.ts';

/** The bounds of live updates (docs/graphql.md "Live updates"); each has a LIVE_* setting. */
export interface LiveLimits {
  /** Open streams one API key may hold on one process. */
  perKey: number;
  /** Open streams one process serves. */
  perProcess: number;
  /** Updates that may wait for one slow client before its stream is dropped. */
  buffer: number;
  /** How long the live log keeps rows for resuming, in minutes. */
  windowMinutes: number;
  /** A comment line on every idle stream this often, in ms. */
  heartbeatMs: number;
  /** How often keys of open streams and the teams' heads are checked again, in ms. */
  recheckMs: number;
  /** How often the relay looks for rows to position, in ms. */
  relayIntervalMs: number;
}

/** One team's rows as this process receives them, in position order, handed to the team's open streams. */
interface TeamFeed {
  teamId: number;
  /** The last position handed on. */
  last: number;
  streams: Set<LiveSubscription>;
  /** Messages are applied one after the other. */
  chain: Promise<void>;
}

export interface LiveMetrics {
  streams: Gauge;
  sent: Counter<'stream'>;
  dropped: Counter<'reason'>;
  refused: Counter<'reason'>;
  lag: Histogram;
  rechecks: Counter;
}

/** A metric of the registry by name, made once: several hubs may share one registry (tests build several apps). */
function once<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

function liveMetrics(registry: Registry): LiveMetrics {
  return {
    streams: once(
      registry,
      'shelf_live_streams',
      () => new Gauge({ name: 'shelf_live_streams', help: 'Open GraphQL subscription streams of this process', registers: [registry] }),
    ),
    sent: once(
      registry,
      'shelf_live_updates_sent_total',
      () =>
        new Counter({
          name: 'shelf_live_updates_sent_total',
          help: 'Updates written to subscription streams, by stream',
          labelNames: ['stream'] as const,
          registers: [registry],
        }),
    ),
    dropped: once(
      registry,
      'shelf_live_streams_ended_total',
      () =>
        new Counter({
          name: 'shelf_live_streams_ended_total',
          help: 'Subscription streams the server ended, by reason (key_revoked, slow_consumer, server_draining)',
          labelNames: ['reason'] as const,
          registers: [registry],
        }),
    ),
    refused: once(
      registry,
      'shelf_live_streams_refused_total',
      () =>
        new Counter({
          name: 'shelf_live_streams_refused_total',
          help: 'Subscription streams refused, by reason (key_cap, process_cap, position_expired)',
          labelNames: ['reason'] as const,
          registers: [registry],
        }),
    ),
    lag: once(
      registry,
      'shelf_live_lag_seconds',
      () =>
        new Histogram({
          name: 'shelf_live_lag_seconds',
          help: 'From the live row written (its transaction) to the update handed to a stream on this process',
          buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
          registers: [registry],
        }),
    ),
    rechecks: once(
      registry,
      'shelf_live_rechecks_total',
      () => new Counter({ name: 'shelf_live_rechecks_total', help: 'Re-checks of the keys and team heads of open streams, finished', registers: [registry] }),
    ),
  };
}

/**
 * The live updates of one API process (docs/graphql.md "Live updates"): the relay that positions
 * committed rows and publishes them, one Redis subscriber connection whose team channels it
 * follows while it has streams of the team, and the open streams with their caps.
 */
export class LiveHub {
  readonly limits: LiveLimits;
  readonly metrics: LiveMetrics;
  private readonly op: UnitOfWork;
  private readonly redisUrl: string;
  private readonly prefix: string;
  private readonly logger: Logger | null;
  private subscriber: Redis | null = null;
  private publisher: Redis | null = null;
  private relay: LiveRelay | null = null;
  private readonly feeds = new Map<number, TeamFeed>();
  private readonly feedsOpening = new Map<number, Promise<TeamFeed>>();
  private readonly byKey = new Map<number, number>();
  private open = 0;
  private draining = false;
  private stopped = false;
  private relayTimer: NodeJS.Timeout | null = null;
  private relayRun: Promise<void> | null = null;
  private recheckTimer: NodeJS.Timeout | null = null;

  constructor(options: { op: UnitOfWork; redisUrl: string; prefix: string; limits: LiveLimits; registry: Registry; logger?: Logger }) {
    this.op = options.op;
    this.redisUrl = options.redisUrl;
    this.prefix = options.prefix;
    this.limits = options.limits;
    this.logger = options.logger ?? null;
    this.metrics = liveMetrics(options.registry);
  }

  /** Starts the relay and the re-checks; the subscriber connects with the first stream. */
  start(): void {
    this.publisher = new Redis(this.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
    this.publisher.on('error', () => {});
    this.relay = new LiveRelay({ op: this.op, publisher: this.publisher, prefix: this.prefix, windowMinutes: this.limits.windowMinutes });
    this.scheduleRelay(0);
    this.recheckTimer = setInterval(() => void this.recheck(), this.limits.recheckMs);
    this.recheckTimer.unref();
  }

  private scheduleRelay(delayMs: number): void {
    if (this.stopped) return;
    this.relayTimer = setTimeout(() => {
      this.relayRun = this.relay!.step().then(
        (count) => this.scheduleRelay(count >= 1000 ? 0 : this.limits.relayIntervalMs),
        (err: unknown) => {
          this.logger?.warn({ err }, 'live relay step failed; retrying');
          this.scheduleRelay(Math.max(this.limits.relayIntervalMs, 1000));
        },
      );
    }, delayMs);
  }

  /**
   * Opens a stream for a key: refused past the key's or the process's cap (`stream_limit_reached`),
   * or when `after` is older than the live log keeps (`position_expired`) or was never given
   * (`validation_failed`). Without `after` it starts at the team's newest position.
   */
  async openStream(key: KeyActor, scope: StreamScope, after: number | null): Promise<LiveSubscription> {
    if (this.draining) throw new DomainError('service_unavailable', 'This process is shutting down; reconnect.', undefined, { retryAfterSeconds: 1 });
    if ((this.byKey.get(key.keyId) ?? 0) >= this.limits.perKey) {
      this.metrics.refused.labels('key_cap').inc();
      throw new DomainError('stream_limit_reached', `This API key already holds ${this.limits.perKey} open streams on this server, the limit.`, undefined, {
        reason: 'key_cap',
      });
    }
    if (this.open >= this.limits.perProcess) {
      this.metrics.refused.labels('process_cap').inc();
      throw new DomainError(
        'stream_limit_reached',
        `This server already holds ${this.limits.perProcess} open streams, the limit; try again later.`,
        undefined,
        {
          reason: 'process_cap',
          retryAfterSeconds: 5,
        },
      );
    }
    if (after !== null) await this.checkResumable(after);
    // counted before the first await that could interleave with another open of the same key
    this.count(key.keyId, +1);
    try {
      let feed = await this.feed(key.teamId);
      // the feed's last stream may have closed meanwhile, dropping it
      while (this.feeds.get(key.teamId) !== feed) feed = await this.feed(key.teamId);
      const stream = new LiveSubscription({
        keyId: key.keyId,
        teamId: key.teamId,
        role: key.role,
        scope,
        from: after ?? feed.last,
        resume: after !== null,
        buffer: this.limits.buffer,
        db: { em: this.op.em, teamId: key.teamId },
      });
      feed.streams.add(stream);
      // the gauge counts streams attached to their feed: from here on every committed row reaches it
      this.metrics.streams.inc();
      stream.onClose = () => {
        feed.streams.delete(stream);
        this.metrics.streams.dec();
        this.count(key.keyId, -1);
        if (feed.streams.size === 0) void this.dropFeed(feed);
      };
      return stream;
    } catch (e) {
      this.count(key.keyId, -1);
      throw e;
    }
  }

  private count(keyId: number, by: 1 | -1): void {
    const now = (this.byKey.get(keyId) ?? 0) + by;
    if (now <= 0) this.byKey.delete(keyId);
    else this.byKey.set(keyId, now);
    this.open += by;
  }

  private async checkResumable(after: number): Promise<void> {
    const window = await positionWindow(this.op);
    if (after > window.last)
      throw new DomainError('validation_failed', 'after: no update has this position', [{ field: 'after', message: 'is not a position this server gave' }]);
    if (after < window.purgedBelow - 1) {
      this.metrics.refused.labels('position_expired').inc();
      throw new DomainError(
        'position_expired',
        `The position is older than the ${this.limits.windowMinutes} minutes the live log keeps; refetch what you show, then subscribe without a position.`,
      );
    }
  }

  /** The team's feed, subscribing to its channel first so no message is missed between the head read and the first message. */
  private feed(teamId: number): Promise<TeamFeed> {
    // a feed still opening is in `feeds` already (messages find it) but not ready for streams
    const opening = this.feedsOpening.get(teamId);
    if (opening) return opening;
    const known = this.feeds.get(teamId);
    if (known) return Promise.resolve(known);
    const promise = (async () => {
      const feed: TeamFeed = { teamId, last: 0, streams: new Set(), chain: Promise.resolve() };
      let ready!: () => void;
      feed.chain = new Promise<void>((resolve) => {
        ready = resolve;
      });
      this.feeds.set(teamId, feed);
      try {
        await this.connectSubscriber().subscribe(teamChannel(this.prefix, teamId));
        feed.last = (await teamHeads(this.op, [teamId])).get(teamId) ?? 0;
      } catch (e) {
        this.feeds.delete(teamId);
        throw e;
      } finally {
        ready();
        this.feedsOpening.delete(teamId);
      }
      return feed;
    })();
    this.feedsOpening.set(teamId, promise);
    return promise;
  }

  private async dropFeed(feed: TeamFeed): Promise<void> {
    if (feed.streams.size > 0 || this.feeds.get(feed.teamId) !== feed) return;
    this.feeds.delete(feed.teamId);
    await this.subscriber?.unsubscribe(teamChannel(this.prefix, feed.teamId)).catch(() => {});
  }

  private connectSubscriber(): Redis {
    if (this.subscriber) return this.subscriber;
    const subscriber = new Redis(this.redisUrl, { maxRetriesPerRequest: null });
    subscriber.on('error', (err) => this.logger?.warn({ err }, 'live updates subscriber connection error'));
    subscriber.on('message', (channel: string, text: string) => this.onMessage(channel, text));
    // after a reconnection ioredis subscribes again; what was published meanwhile is read by the re-check
    this.subscriber = subscriber;
    return subscriber;
  }

  private onMessage(channel: string, text: string): void {
    const teamId = Number(channel.slice(channel.lastIndexOf(':') + 1));
    const feed = this.feeds.get(teamId);
    if (!feed) return;
    let message: LiveMessage;
    try {
      message = JSON.parse(text) as LiveMessage;
    } catch {
      return;
    }
    this.enqueue(feed, message);
  }

  private enqueue(feed: TeamFeed, message: LiveMessage | null): void {
    feed.chain = feed.chain.then(() => this.apply(feed, message)).catch((err: unknown) => this.logger?.warn({ err }, 'live feed update failed'));
  }

  /**
   * Hands a message's rows to the team's streams. When the message does not follow what was
   * handed last (a message lost or overtaken), or for a re-check (`message` null), the rows are
   * read from PostgreSQL instead, so every stream sees every row of its team, in order, once.
   */
  private async apply(feed: TeamFeed, message: LiveMessage | null): Promise<void> {
    const newest = message?.rows.at(-1)?.position ?? Number.POSITIVE_INFINITY;
    if (message && newest <= feed.last) return;
    if (message && message.previous <= feed.last) {
      this.handOn(feed, message.rows);
      return;
    }
    for (;;) {
      const rows = await rowsAfter({ em: this.op.em, teamId: feed.teamId }, feed.last, 500);
      this.handOn(feed, rows);
      if (rows.length < 500 || rows.at(-1)!.position >= newest) return;
    }
  }

  private handOn(feed: TeamFeed, rows: readonly LiveRow[]): void {
    const now = Date.now();
    for (const row of rows) {
      if (row.position <= feed.last) continue;
      feed.last = row.position;
      // a key of the team was revoked or changed role: check keys now, not at the next period
      if (row.stream === 'key') this.recheckSoon();
      this.metrics.lag.observe(Math.max(0, now - row.writtenAtMs) / 1000);
      for (const stream of feed.streams) stream.offer(row);
    }
  }

  private recheckQueued = false;

  private recheckSoon(): void {
    if (this.recheckQueued) return;
    this.recheckQueued = true;
    setImmediate(() => {
      this.recheckQueued = false;
      void this.recheck();
    });
  }

  /** Keys of open streams checked again (revoked or expired: their streams end; role changes apply), and teams' heads compared with PostgreSQL's. */
  private async recheck(): Promise<void> {
    if (this.feeds.size === 0) return;
    try {
      const asked = new Set(this.byKey.keys());
      const keys = await keyStates(this.op, [...asked]);
      for (const feed of this.feeds.values()) {
        for (const stream of feed.streams) {
          // a stream opened while the keys were read is checked next time, not taken for revoked
          if (!asked.has(stream.keyId)) continue;
          const state = keys.get(stream.keyId);
          if (!state?.usable) {
            this.metrics.dropped.labels('key_revoked').inc();
            stream.end(new StreamEnded('key_revoked', 'The API key was revoked or expired.'));
          } else stream.setRole(state.role);
        }
      }
      const heads = await teamHeads(this.op, [...this.feeds.keys()]);
      for (const [teamId, head] of heads) {
        const feed = this.feeds.get(teamId);
        if (feed && head > feed.last) this.enqueue(feed, null);
      }
      this.metrics.rechecks.inc();
    } catch (err) {
      this.logger?.warn({ err }, 'live updates re-check failed');
    }
  }

  /** SIGTERM: every stream ends with `server_draining` (a reconnect hint); new ones are refused. */
  drain(): void {
    this.draining = true;
    for (const feed of [...this.feeds.values()]) {
      for (const stream of [...feed.streams]) {
        this.metrics.dropped.labels('server_draining').inc();
        stream.end(new StreamEnded('server_draining', 'The server is restarting; reconnect with your last position.'));
      }
    }
  }

  /** A stream ended for being too slow is counted (the transport calls this). */
  countDrop(reason: string): void {
    this.metrics.dropped.labels(reason).inc();
  }

  async close(): Promise<void> {
    this.drain();
    this.stopped = true;
    if (this.relayTimer) clearTimeout(this.relayTimer);
    if (this.recheckTimer) clearInterval(this.recheckTimer);
    await this.relayRun;
    this.subscriber?.disconnect();
    this.publisher?.disconnect();
  }
}
