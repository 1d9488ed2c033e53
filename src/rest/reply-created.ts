import type { FastifyReply } from 'fastify';
import type { IdempotentOutcome } from '../core/platform/idempotency.ts';
import { ok } from './envelope.ts';

/**
 * Answers a create: the outcome's status (201, or the original status on an idempotent replay),
 * its ETag when it has one, `Idempotent-Replayed: true` on a replay, and the data in the envelope.
 */
export function replyCreated<T>(reply: FastifyReply, requestId: string, outcome: IdempotentOutcome<T>): FastifyReply {
  if (outcome.etag) reply.header('ETag', outcome.etag);
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.status(outcome.status).send(ok(requestId, outcome.body));
}
