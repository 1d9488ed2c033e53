import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Core } from '../core/core.ts';
import { DomainError } from '../core/platform/errors.ts';
import { authenticate } from './auth.ts';
import { sendOpenError } from './open-envelope.ts';

/** A routes plugin of the open API; it receives the core like the /v1 route plugins. */
export type OpenRoutes = FastifyPluginAsync<{ core: Core }>;

/**
 * The open API (`/open`, CONTRACT.md): an encapsulated plugin with its own error and not-found
 * handlers, so every failure under the prefix uses the open envelope (`code`, `message`, `result`,
 * `traceId`) instead of the Area A one. The app-wide hooks (X-Request-Id, Cache-Control, the
 * 1 MiB body limit) apply here too. Areas C and D add their routes through `routes`.
 */
export function openArea(routes: OpenRoutes[]) {
  return async (open: FastifyInstance, { core }: { core: Core }): Promise<void> => {
    open.setErrorHandler((error, request, reply) => sendOpenError(error, request, reply));
    open.setNotFoundHandler((request, reply) =>
      sendOpenError(new DomainError('not_found', `No route ${request.method} ${request.url.split('?')[0]}`), request, reply),
    );
    // spec 5: every request of Areas B and C carries the Bearer key of its team
    authenticate(open, core);
    for (const register of routes) await open.register(register, { core });
  };
}
