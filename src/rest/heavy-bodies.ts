import type { FastifyInstance } from 'fastify';
import { type AnswerBudget, HEAP_BYTES_PER_STORED_BYTE } from '../core/platform/answer-budget.ts';
import { whenResponseCloses } from './response-closed.ts';

/** Bodies from this size on are admitted under the memory budget; smaller ones cost what any request costs. */
const HEAVY_BODY_BYTES = 64 * 1024;

/**
 * A large request body costs heap while it is read, parsed, validated and written (a 1 MB
 * template definition about 6 MB), and its CPU holds the event loop: forty of them at once could
 * exhaust the heap, and made small requests beside them wait seconds. So a body of 64 KiB or more
 * (by Content-Length; a chunked body counts as the 1 MiB limit) takes a lease on the same budget as
 * large answers before it is read, held until its answer is written: large writes queue among
 * themselves, small requests pass beside them, and past the budget's wait a request gets
 * `503 service_unavailable` with Retry-After (docs/operations.md "Memory").
 */
export function admitHeavyBodies(app: FastifyInstance, budget: AnswerBudget, bodyLimit: number): void {
  app.addHook('onRequest', (request, reply, done) => {
    // routes that stream their bodies (uploads: their own, larger limit) buffer nothing to budget
    if ((request.routeOptions.bodyLimit ?? bodyLimit) !== bodyLimit) return done();
    const declared = Number(request.headers['content-length'] ?? 0);
    const chunked = request.headers['transfer-encoding'] !== undefined;
    if (!chunked && !(declared >= HEAVY_BODY_BYTES)) return done();
    // a body over the limit is refused by the body limit, without waiting for the budget
    if (declared > bodyLimit) return done();
    const bytes = chunked ? bodyLimit : declared;
    budget.reserve(bytes * HEAP_BYTES_PER_STORED_BYTE).then(
      (lease) => {
        whenResponseCloses(reply.raw, lease.release);
        done();
      },
      (error: Error) => done(error),
    );
  });
}
