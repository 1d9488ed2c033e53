import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Core } from '../core/core.ts';
import type { Ctx } from '../core/platform/ctx.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller's unit of work; set by `authenticate` before any handler runs. */
    ctx: Ctx;
  }
}

/** Authenticates every request of the enclosing plugin afresh from its Bearer key (spec 5). */
export function authenticate(app: FastifyInstance, core: Core): void {
  app.decorateRequest('ctx', null as unknown as Ctx);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const actor = await core.access.authenticate(core.operatorCtx(), request.headers.authorization);
    request.ctx = core.ctxFor(actor, request.id);
  });
}

/** A header's single value (a repeated header arrives as an array; the first one counts). */
export function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
