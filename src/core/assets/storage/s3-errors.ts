import { StorageUnavailableError } from './storage.ts';

/** Network failures and server errors: the store is down or overloaded, not the request wrong. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'ECONNABORTED',
  'TimeoutError',
  'RequestTimeout',
]);

export function unavailable(e: unknown): boolean {
  const error = e as { code?: string; name?: string; $metadata?: { httpStatusCode?: number }; message?: string };
  const status = error.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 500) return true;
  if (error.code && UNREACHABLE.has(error.code)) return true;
  if (error.name && UNREACHABLE.has(error.name)) return true;
  return /socket hang up|ECONNREFUSED|ECONNRESET|aborted/i.test(error.message ?? '');
}

/** An error of the store as the core sees it: unreachable stores become StorageUnavailableError (503 with Retry-After). */
export function storageError(e: unknown): Error {
  if (e instanceof StorageUnavailableError) return e;
  if (unavailable(e)) return new StorageUnavailableError(e);
  return e as Error;
}

export function notFound(e: unknown): boolean {
  const error = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata?.httpStatusCode === 404;
}
