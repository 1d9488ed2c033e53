import { isIP } from 'node:net';
import { DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from './core/events/retry-schedule.ts';
import type { LiveLimits } from './core/live/live-hub.ts';

/** Every setting of CONTRACT.md, read once from the environment and validated at start-up. */
export interface Config {
  role: 'all' | 'api' | 'worker';
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string;
  publicBaseUrl: string;
  linkSigningSecret: string | null;
  storageDir: string;
  /** Where file bytes live: `local` (STORAGE_DIR, the default) or an S3 bucket (docs/operations.md "Object storage"). */
  storage: StorageConfig;
  /** The S3_* settings when S3_BUCKET is set, whatever the backend (`storage copy` moves files between the two). */
  s3: S3Settings | null;
  logoHostAllowlist: string[];
  outboundAllowHosts: string[];
  approvalDownloadTimeoutMs: number;
  approvalMaxAssetBytes: number;
  logLevel: string;
  /** Prefix for every Redis key BullMQ writes, so several deployments or test files can share one Redis. */
  queuePrefix: string;
  /** Waits before each webhook retry, in ms (docs/events.md "Delivery"). */
  webhookRetryScheduleMs: number[];
  /** One webhook attempt's bound, in ms (15 s). */
  webhookTimeoutMs: number;
  /** Webhook attempts one worker process runs at once. */
  webhookConcurrency: number;
  /** How often the outbox relay looks for due deliveries, in ms. */
  relayIntervalMs: number;
  /** GraphiQL on GET /graphql from a browser (`GRAPHIQL=off` turns it off). */
  graphiql: boolean;
  /** Days activity records are kept (docs/products.md). */
  activityRetentionDays: number;
  /** Days the products sync feed's change log (product_changes) is kept; the feed refuses an older updatedAfter (docs/products.md "Sync feed"). */
  productChangesRetentionDays: number;
  /** Largest file an upload over HTTP may have, in bytes (docs/library.md "Uploads"). */
  uploadMaxFileBytes: number;
  /** Bytes a team may hold (its stored objects plus its open uploads); null: no quota. */
  uploadTeamQuotaBytes: number | null;
  /** Seconds an upload waits for its next bytes before it expires and the maintenance job removes it. */
  uploadExpirySeconds: number;
  /** GraphQL subscriptions' bounds (docs/graphql.md "Live updates"), LIVE_* settings. */
  live: LiveLimits;
  /** Heap bytes that answers being read and written may hold at once (docs/operations.md "Memory"). */
  answerMemoryBudgetBytes: number;
  /** Bytes of JSON one GraphQL operation may answer; larger answers are refused with RESPONSE_TOO_LARGE (docs/graphql.md "Limits"). */
  graphqlMaxResponseBytes: number;
  /** Stored bytes one CLI command's answer may carry; past it the command fails with response_too_large (docs/cli.md "Large answers"). */
  cliMaxAnswerBytes: number;
}

/** The S3_* settings of a bucket; credentials come from the AWS SDK's default chain when not set here. */
export interface S3Settings {
  bucket: string;
  prefix: string;
  endpoint: string | null;
  region: string;
  forcePathStyle: boolean;
  /** AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) when set; null: the rest of the SDK's chain (AWS_PROFILE, web identity, instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | null;
  /** S3_DOWNLOAD_REDIRECT: signed links to originals answer 302 to a presigned GET of the bucket instead of streaming through Shelf. */
  redirectDownloads: boolean;
}

/** STORAGE_BACKEND: local disk (STORAGE_DIR) or the S3 bucket of the S3_* settings. */
export type StorageConfig = { backend: 'local' } | ({ backend: 's3' } & S3Settings);

/** Thrown for a wrong setting; the message names the variable so the operator knows what to fix. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function url(env: Env, name: string, fallback: string, protocols: string[]): string {
  const raw = env[name] || fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL: "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

function hostList(env: Env, name: string, allowPort: boolean): string[] {
  const raw = env[name] ?? '';
  const entries = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  for (const entry of entries) {
    if (entry.includes('*')) throw new ConfigError(`${name} may not contain wildcards: "${entry}"`);
    const pattern = allowPort ? /^(\[[0-9a-f:]+\]|[a-z0-9.-]+)(:\d{1,5})?$/ : /^(\[[0-9a-f:]+\]|[a-z0-9.-]+)$/;
    if (!pattern.test(entry) && !(isIP(entry) === 6 && !allowPort)) {
      throw new ConfigError(`${name} has an invalid entry "${entry}" (expected ${allowPort ? 'host[:port]' : 'host'})`);
    }
  }
  return entries;
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (['on', 'true', '1'].includes(raw)) return true;
  if (['off', 'false', '0'].includes(raw)) return false;
  throw new ConfigError(`${name} must be on or off, got "${env[name]}"`);
}

function retrySchedule(env: Env): number[] {
  const raw = env.WEBHOOK_RETRY_SCHEDULE;
  if (raw === undefined || raw.trim() === '') return DEFAULT_RETRY_SCHEDULE_MS;
  try {
    return parseRetrySchedule(raw);
  } catch (e) {
    throw new ConfigError(`WEBHOOK_RETRY_SCHEDULE ${(e as Error).message}`);
  }
}

function s3Settings(env: Env): S3Settings | null {
  const bucket = (env.S3_BUCKET ?? '').trim();
  if (bucket === '') return null;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new ConfigError(`S3_BUCKET is not a valid bucket name: "${bucket}"`);
  const prefix = (env.S3_PREFIX ?? '').trim();
  if (prefix !== '' && (!/^[\w.-]+(\/[\w.-]+)*\/?$/.test(prefix) || prefix.split('/').some((part) => part === '.' || part === '..'))) {
    throw new ConfigError(`S3_PREFIX must be a relative key prefix of letters, digits, '.', '_', '-' and '/', got "${prefix}"`);
  }
  const endpoint = env.S3_ENDPOINT ? url(env, 'S3_ENDPOINT', '', ['http:', 'https:']).replace(/\/+$/, '') : null;
  // the SDK's own variables name the region when S3_REGION does not
  const region = (env.S3_REGION || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1').trim();
  if (!/^[a-z0-9-]+$/.test(region)) throw new ConfigError(`S3_REGION must be a region name like us-east-1, got "${region}"`);
  // servers other than AWS mostly want path-style addressing: the default when an endpoint is set
  const forcePathStyle = onOff(env, 'S3_FORCE_PATH_STYLE', endpoint !== null);
  // the chain's first source, read here with the rest of the settings; the SDK goes on down the chain without them
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) throw new ConfigError('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together');
  const sessionToken = env.AWS_SESSION_TOKEN?.trim();
  const credentials = accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } : null;
  return { bucket, prefix, endpoint, region, forcePathStyle, credentials, redirectDownloads: onOff(env, 'S3_DOWNLOAD_REDIRECT', false) };
}

function storageConfig(env: Env, s3: S3Settings | null): StorageConfig {
  const backend = (env.STORAGE_BACKEND || 'local').trim();
  if (backend === 'local') return { backend };
  if (backend !== 's3') throw new ConfigError(`STORAGE_BACKEND must be local or s3, got "${backend}"`);
  if (!s3) throw new ConfigError('S3_BUCKET must name the bucket when STORAGE_BACKEND=s3');
  return { backend, ...s3 };
}

export function loadConfig(env: Env = process.env): Config {
  const role = env.ROLE || 'all';
  if (role !== 'all' && role !== 'api' && role !== 'worker') {
    throw new ConfigError(`ROLE must be one of all, api, worker, got "${role}"`);
  }
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const secret = env.LINK_SIGNING_SECRET || null;
  if (secret !== null && secret.length < 32) {
    throw new ConfigError('LINK_SIGNING_SECRET must be at least 32 characters');
  }
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const hostForUrl = isIP(host) === 6 ? `[${host}]` : host;
  const s3 = s3Settings(env);
  return {
    role,
    port,
    host,
    databaseUrl: url(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/shelf', ['postgres:', 'postgresql:']),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    publicBaseUrl: url(env, 'PUBLIC_BASE_URL', `http://${hostForUrl}:${port}`, ['http:', 'https:']).replace(/\/+$/, ''),
    linkSigningSecret: secret,
    storageDir: env.STORAGE_DIR || './data/files',
    storage: storageConfig(env, s3),
    s3,
    logoHostAllowlist: hostList(env, 'LOGO_HOST_ALLOWLIST', false),
    outboundAllowHosts: hostList(env, 'OUTBOUND_ALLOW_HOSTS', true),
    approvalDownloadTimeoutMs: integer(env, 'APPROVAL_DOWNLOAD_TIMEOUT_MS', 30000, 1, 3_600_000),
    approvalMaxAssetBytes: integer(env, 'APPROVAL_MAX_ASSET_BYTES', 524288000, 1, Number.MAX_SAFE_INTEGER),
    logLevel,
    queuePrefix: env.QUEUE_PREFIX || 'shelf',
    webhookRetryScheduleMs: retrySchedule(env),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 1, 600_000),
    webhookConcurrency: integer(env, 'WEBHOOK_CONCURRENCY', 50, 1, 1000),
    relayIntervalMs: integer(env, 'RELAY_INTERVAL_MS', 200, 10, 60_000),
    graphiql: onOff(env, 'GRAPHIQL', true),
    activityRetentionDays: integer(env, 'ACTIVITY_RETENTION_DAYS', 400, 1, 36_500),
    productChangesRetentionDays: integer(env, 'PRODUCT_CHANGES_RETENTION_DAYS', 400, 1, 36_500),
    uploadMaxFileBytes: integer(env, 'UPLOAD_MAX_FILE_BYTES', 5 * 1024 ** 3, 1, Number.MAX_SAFE_INTEGER),
    uploadTeamQuotaBytes: env.UPLOAD_TEAM_QUOTA_BYTES ? integer(env, 'UPLOAD_TEAM_QUOTA_BYTES', 0, 0, Number.MAX_SAFE_INTEGER) : null,
    uploadExpirySeconds: integer(env, 'UPLOAD_EXPIRY_SECONDS', 86_400, 1, 365 * 86_400),
    live: {
      perKey: integer(env, 'LIVE_STREAMS_PER_KEY', 16, 1, 100_000),
      perProcess: integer(env, 'LIVE_STREAMS_PER_PROCESS', 5000, 1, 1_000_000),
      buffer: integer(env, 'LIVE_BUFFER', 1000, 1, 1_000_000),
      windowMinutes: integer(env, 'LIVE_WINDOW_MINUTES', 60, 1, 10_080),
      heartbeatMs: integer(env, 'LIVE_HEARTBEAT_MS', 15_000, 100, 600_000),
      recheckMs: integer(env, 'LIVE_RECHECK_MS', 2000, 50, 600_000),
      relayIntervalMs: integer(env, 'LIVE_RELAY_INTERVAL_MS', 100, 10, 60_000),
    },
    answerMemoryBudgetBytes: integer(env, 'ANSWER_MEMORY_BUDGET_MB', 64, 8, 65_536) * 1024 * 1024,
    graphqlMaxResponseBytes: integer(env, 'GRAPHQL_MAX_RESPONSE_MB', 16, 1, 1024) * 1024 * 1024,
    cliMaxAnswerBytes: integer(env, 'CLI_MAX_ANSWER_MB', 64, 1, 1024) * 1024 * 1024,
  };
}
