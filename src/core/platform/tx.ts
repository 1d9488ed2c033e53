import { DeadlockException } from '@mikro-orm/core';
import type { Ctx, UnitOfWork } from './ctx.ts';
import { mapDatabaseError } from './db-errors.ts';
import { DomainError } from './errors.ts';

const MAX_ATTEMPTS = 4;

export interface TxOptions {
  /** SERIALIZABLE for units that read-then-write across rows without locks. */
  isolation?: 'read committed' | 'repeatable read' | 'serializable';
  /** Tests lower this to prove the exhausted path. */
  maxAttempts?: number;
}

/** SQLSTATE 40001 and 40P01 both surface as DeadlockException in MikroORM 7. */
function isRetryable(e: unknown): boolean {
  if (e instanceof DeadlockException) return true;
  const code = (e as { code?: string } | null)?.code;
  return code === '40001' || code === '40P01';
}

/**
 * Runs a unit of work in one transaction. Joins an open transaction instead of nesting; retries
 * serialization failures and deadlocks from a fresh fork a bounded number of times, then gives
 * `write_conflict` (the caller sees 503 with Retry-After). Nothing is ever committed half-way.
 */
export async function inTransaction<T, C extends UnitOfWork = Ctx>(ctx: C, work: (tx: C) => Promise<T>, options: TxOptions = {}): Promise<T> {
  if (ctx.em.isInTransaction()) return work(ctx);
  const maxAttempts = options.maxAttempts ?? MAX_ATTEMPTS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.em.fork().transactional((em) => work({ ...ctx, em }), {
        isolationLevel: options.isolation ?? 'read committed',
      });
    } catch (e) {
      // known constraints and an unreachable database become the domain errors they mean (db-errors.ts)
      if (!isRetryable(e)) throw mapDatabaseError(e);
      if (attempt >= maxAttempts) {
        throw new DomainError('write_conflict', 'The change conflicted with a concurrent change and was rolled back; retry');
      }
      // a short jittered pause lets the competing transaction finish
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 10));
    }
  }
}
