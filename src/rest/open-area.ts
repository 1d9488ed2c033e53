import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../core/core.ts';
import { DomainError } from '../core/platform/errors.ts';
import { authenticate } from './auth.ts';
import { sendOpenError } from './open-envelope.ts';

/** A routes plugin of an envelope area; it receives the core like the /v1 route plugins. */
export type AreaRoutes = FastifyPluginAsync<{ core: Core }>;

export interface EnvelopeAreaOptions {
  routes: AreaRoutes[];
  /** `bearer`: every request carries its team's key (spec 5, CONTRACT.md); `none`: the routes authenticate themselves. */
  auth: 'bearer' | 'none';
  /** The area's failure envelope: maps any error (domain, Fastify, unknown) once. */
  sendError: (error: unknown, request: FastifyRequest, reply: FastifyReply) => FastifyReply;
}

/**
 * An API area under its own prefix with its own envelope (`/open`, `/approval`): an encapsulated
 * plugin with its own error and not-found handlers, so every failure under the prefix uses the
 * area's envelope instead of Area A's. The app-wide hooks (X-Request-Id, Cache-Control, the 1 MiB
 * body limit) apply here too.
 */
export function envelopeArea(options: EnvelopeAreaOptions) {
  return async (area: FastifyInstance, { core }: { core: Core }): Promise<void> => {
    area.setErrorHandler((error, request, reply) => options.sendError(error, request, reply));
    area.setNotFoundHandler((request, reply) =>
      options.sendError(
        new DomainError('not_found', `No route ${request.method} ${request.url.split('?')[0]}`, undefined, { subject: 'route' }),
        request,
        reply,
      ),
    );
    if (options.auth === 'bearer') authenticate(area, core);
    for (const register of options.routes) await area.register(register, { core });
  };
}

/** The open API (`/open`, Areas B and C): the open envelope, every request authenticated by its Bearer key. */
export function openArea(routes: AreaRoutes[]) {
  return envelopeArea({ routes, auth: 'bearer', sendError: sendOpenError });
}
