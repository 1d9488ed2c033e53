import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('configuration (CONTRACT.md), read once and validated at start-up', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      role: 'all',
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/shelf',
      redisUrl: 'redis://127.0.0.1:6379',
      publicBaseUrl: 'http://127.0.0.1:8080',
      linkSigningSecret: null,
      storageDir: './data/files',
      logoHostAllowlist: [],
      outboundAllowHosts: [],
      approvalDownloadTimeoutMs: 30000,
      approvalMaxAssetBytes: 524288000,
      logLevel: 'info',
    });
  });

  it('keeps the products sync feed change log PRODUCT_CHANGES_RETENTION_DAYS days: 400 by default, any integer from 1 to 36500', () => {
    expect(loadConfig({}).productChangesRetentionDays).toBe(400);
    expect(loadConfig({ PRODUCT_CHANGES_RETENTION_DAYS: '' }).productChangesRetentionDays).toBe(400);
    for (const days of [1, 30, 36_500]) expect(loadConfig({ PRODUCT_CHANGES_RETENTION_DAYS: String(days) }).productChangesRetentionDays).toBe(days);
  });

  it('reads the upload settings: a 5 GiB file limit, no team quota and a 24-hour expiry by default; bad values refused naming the variable', () => {
    expect(loadConfig({})).toMatchObject({ uploadMaxFileBytes: 5 * 1024 ** 3, uploadTeamQuotaBytes: null, uploadExpirySeconds: 86_400 });
    expect(loadConfig({ UPLOAD_MAX_FILE_BYTES: '1000', UPLOAD_TEAM_QUOTA_BYTES: '0', UPLOAD_EXPIRY_SECONDS: '60' })).toMatchObject({
      uploadMaxFileBytes: 1000,
      uploadTeamQuotaBytes: 0,
      uploadExpirySeconds: 60,
    });
    for (const [name, value] of [
      ['UPLOAD_MAX_FILE_BYTES', '0'],
      ['UPLOAD_MAX_FILE_BYTES', '1e9'],
      ['UPLOAD_TEAM_QUOTA_BYTES', '-1'],
      ['UPLOAD_EXPIRY_SECONDS', '0'],
      ['UPLOAD_EXPIRY_SECONDS', 'day'],
    ]) {
      expect(() => loadConfig({ [name!]: value! })).toThrow(ConfigError);
      expect(() => loadConfig({ [name!]: value! })).toThrow(name!);
    }
  });

  it('keeps files on local disk unless STORAGE_BACKEND=s3 names a bucket, with path-style addressing by default when an endpoint is set', () => {
    expect(loadConfig({}).storage).toEqual({ backend: 'local' });
    expect(loadConfig({ STORAGE_BACKEND: 's3', S3_BUCKET: 'shelf-files' }).storage).toEqual({
      backend: 's3',
      bucket: 'shelf-files',
      prefix: '',
      endpoint: null,
      region: 'us-east-1',
      forcePathStyle: false,
      credentials: null,
      redirectDownloads: false,
    });
    expect(
      loadConfig({ STORAGE_BACKEND: 's3', S3_BUCKET: 'shelf', S3_ENDPOINT: 'http://127.0.0.1:7480/', AWS_REGION: 'eu-west-1', S3_PREFIX: 'prod/' }).storage,
    ).toEqual({
      backend: 's3',
      bucket: 'shelf',
      prefix: 'prod/',
      endpoint: 'http://127.0.0.1:7480',
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: null,
      redirectDownloads: false,
    });
    expect(loadConfig({ STORAGE_BACKEND: 's3', S3_BUCKET: 'shelf', S3_ENDPOINT: 'http://127.0.0.1:7480', S3_FORCE_PATH_STYLE: 'off' }).storage).toMatchObject({
      forcePathStyle: false,
    });
  });

  it('redirects signed links to presigned S3 URLs only with S3_DOWNLOAD_REDIRECT=on', () => {
    expect(loadConfig({ STORAGE_BACKEND: 's3', S3_BUCKET: 'shelf' }).storage).toMatchObject({ redirectDownloads: false });
    expect(loadConfig({ STORAGE_BACKEND: 's3', S3_BUCKET: 'shelf', S3_DOWNLOAD_REDIRECT: 'on' }).storage).toMatchObject({ redirectDownloads: true });
  });

  it('derives PUBLIC_BASE_URL from HOST and PORT', () => {
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).publicBaseUrl).toBe('http://0.0.0.0:9000');
  });

  it('parses the host lists', () => {
    const config = loadConfig({ LOGO_HOST_ALLOWLIST: 'cdn.example.com, IMG.example.com', OUTBOUND_ALLOW_HOSTS: '127.0.0.1:9000,localhost' });
    expect(config.logoHostAllowlist).toEqual(['cdn.example.com', 'img.example.com']);
    expect(config.outboundAllowHosts).toEqual(['127.0.0.1:9000', 'localhost']);
  });

  const wrong: Array<[string, Record<string, string>]> = [
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['ROLE', { ROLE: 'both' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x/y' }],
    ['DATABASE_URL', { DATABASE_URL: 'not a url' }],
    ['REDIS_URL', { REDIS_URL: 'http://127.0.0.1:6379' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'ftp://files.example.com' }],
    ['LINK_SIGNING_SECRET', { LINK_SIGNING_SECRET: 'short' }],
    ['OUTBOUND_ALLOW_HOSTS', { OUTBOUND_ALLOW_HOSTS: '*.example.com' }],
    ['OUTBOUND_ALLOW_HOSTS', { OUTBOUND_ALLOW_HOSTS: 'http://x' }],
    ['LOGO_HOST_ALLOWLIST', { LOGO_HOST_ALLOWLIST: 'cdn.example.com:443' }],
    ['APPROVAL_DOWNLOAD_TIMEOUT_MS', { APPROVAL_DOWNLOAD_TIMEOUT_MS: '-1' }],
    ['APPROVAL_MAX_ASSET_BYTES', { APPROVAL_MAX_ASSET_BYTES: '1e6' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    ['PRODUCT_CHANGES_RETENTION_DAYS', { PRODUCT_CHANGES_RETENTION_DAYS: '0' }],
    ['PRODUCT_CHANGES_RETENTION_DAYS', { PRODUCT_CHANGES_RETENTION_DAYS: '36501' }],
    ['PRODUCT_CHANGES_RETENTION_DAYS', { PRODUCT_CHANGES_RETENTION_DAYS: '-30' }],
    ['PRODUCT_CHANGES_RETENTION_DAYS', { PRODUCT_CHANGES_RETENTION_DAYS: '1.5' }],
    ['PRODUCT_CHANGES_RETENTION_DAYS', { PRODUCT_CHANGES_RETENTION_DAYS: '30d' }],
    ['STORAGE_BACKEND', { STORAGE_BACKEND: 'ftp' }],
    ['S3_BUCKET', { STORAGE_BACKEND: 's3' }],
    ['S3_BUCKET', { S3_BUCKET: 'Not_A_Bucket', STORAGE_BACKEND: 's3' }],
    ['S3_ENDPOINT', { S3_ENDPOINT: 'ftp://127.0.0.1:7480', STORAGE_BACKEND: 's3', S3_BUCKET: 'shelf' }],
    ['S3_PREFIX', { S3_PREFIX: '../up', STORAGE_BACKEND: 's3', S3_BUCKET: 'shelf' }],
    ['S3_REGION', { S3_REGION: 'Europe West', STORAGE_BACKEND: 's3', S3_BUCKET: 'shelf' }],
    ['S3_DOWNLOAD_REDIRECT', { S3_DOWNLOAD_REDIRECT: 'maybe', STORAGE_BACKEND: 's3', S3_BUCKET: 'shelf' }],
    ['AWS_SECRET_ACCESS_KEY', { AWS_ACCESS_KEY_ID: 'only-the-id', STORAGE_BACKEND: 's3', S3_BUCKET: 'shelf' }],
    ['S3_FORCE_PATH_STYLE', { S3_FORCE_PATH_STYLE: 'sometimes', STORAGE_BACKEND: 's3', S3_BUCKET: 'shelf' }],
  ];
  for (const [variable, env] of wrong) {
    it(`stops with a message naming ${variable} for ${JSON.stringify(Object.values(env)[0])}`, () => {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(variable);
    });
  }
});
