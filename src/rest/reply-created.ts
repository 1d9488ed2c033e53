import type { FastifyReply } from 'fastify';
import type { IdempotentOutcome } from '../core/platform/idempotency.ts';
import { ok } from './envelope.ts';

/**
 * Answers a create: 201 (for the first create and for an idempotent replay alike), its ETag when
 * it has one, `Idempotent-Replayed: true` on a replay, and the data in the envelope. The status is
 * this adapter's decision: the core's outcome carries none.
 */
export function replyCreated<T>(reply: FastifyReply, requestId: string, outcome: IdempotentOutcome<T>): FastifyReply {
  if (outcome.etag) reply.header('ETag', outcome.etag);
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.status(201).send(ok(requestId, outcome.body));
}
