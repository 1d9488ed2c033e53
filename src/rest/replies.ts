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

/** Answers a read or change of one resource: its strong ETag header and the data in the envelope. */
export function replyWithEtag<T>(reply: FastifyReply, requestId: string, outcome: { data: T; etag: string }): FastifyReply {
  return reply.header('ETag', outcome.etag).send(ok(requestId, outcome.data));
}
