import type { FastifyInstance } from 'fastify';
import type { Core } from '../../core/core.ts';
import { attachment } from '../content-disposition.ts';

/**
 * Service-issued media links (CONTRACT.md `/files/...`, spec 8). Registered outside /v1: the
 * signature in the link is the credential, so no Authorization header is read. Errors use the
 * Area A envelope: 403 forbidden (malformed or altered), 410 link_expired, 404 not_found.
 */
export async function fileRoutes(app: FastifyInstance, { core }: { core: Core }): Promise<void> {
  app.get('/files/:teamId/:fileId/:purpose', { schema: { hide: true } }, async (request, reply) => {
    // cast kept: this hidden route has no params/querystring schema for a type provider to read (the core checks the signed link itself)
    const params = request.params as { teamId: string; fileId: string; purpose: string };
    // cast kept: no querystring schema either; a repeated parameter arrives as an array and `single` drops it
    const query = request.query as Record<string, string | string[] | undefined>;
    const single = (value: string | string[] | undefined) => (Array.isArray(value) ? undefined : value);
    const delivery = await core.assets.fileDelivery.open(core.operatorCtx(), {
      ...params,
      exp: single(query.exp),
      sig: single(query.sig),
      variant: single(query.v),
    });
    // the global hook says no-store; a valid link may be cached by the browser until it expires
    reply.header('Cache-Control', `private, max-age=${delivery.maxAgeSeconds}`);
    reply.header('Content-Type', delivery.contentType);
    reply.header('Content-Length', String(delivery.size));
    // user content is never sniffed into HTML nor run as a document of this origin
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Content-Security-Policy', 'sandbox');
    if (delivery.downloadName !== null) reply.header('Content-Disposition', attachment(delivery.downloadName));
    return reply.send(delivery.stream);
  });
}
