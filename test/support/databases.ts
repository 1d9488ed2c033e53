/** Where tests find PostgreSQL: TEST_DATABASE_URL's server (default the local one); database names are per file. */
const base = new URL(process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');

export function databaseUrlFor(name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

export function adminUrl(): string {
  return databaseUrlFor('postgres');
}

export const redisUrl = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
