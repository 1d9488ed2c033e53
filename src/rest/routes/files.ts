import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { RequestedRange } from '../../core/assets/delivery/file-delivery.service.ts';
import type { Core } from '../../core/core.ts';
import { FILE_LINK_ROUTE, fileLinkParts } from '../../public-urls.ts';
import { attachment } from '../content-disposition.ts';

/**
 * A `Range: bytes=` header's one range (RFC 9110 14.1.2); null (send the whole file) for anything
 * else: no header, another unit, several ranges, or a malformed one, which a server may ignore.
 */
function requestedRange(header: string | undefined): RequestedRange | null {
  const match = header ? /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const start = match[1] === '' ? null : Number(match[1]);
  const end = match[2] === '' ? null : Number(match[2]);
  if (start !== null && end !== null && end < start) return null;
  return { start, end };
}

/**
 * Service-issued media links (CONTRACT.md `/files/...`, spec 8). Registered outside /v1: the
 * signature in the link is the credential, so no Authorization header is read. Errors use the
 * Area A envelope: 403 forbidden (malformed or altered), 410 link_expired, 404 not_found.
 */
export async function fileRoutes(app: FastifyInstance, { core }: { core: Core }): Promise<void> {
  app.get(FILE_LINK_ROUTE, { schema: { hide: true } }, async (request, reply) => {
    // cast kept: this hidden route has no params/querystring schema for a type provider to read (the core checks the signed link itself)
    const params = request.params as { teamId: string; fileId: string; purpose: string };
    // cast kept: no querystring schema either; a repeated parameter arrives as an array and fileLinkParts drops it
    const query = request.query as Record<string, string | string[] | undefined>;
    const delivery = await core.assets.fileDelivery.open(core.operatorCtx(), fileLinkParts(params, query), Date.now(), requestedRange(request.headers.range));
    if (delivery.redirectTo) {
      // the store serves the bytes (S3_DOWNLOAD_REDIRECT): its presigned URL expires sooner than the link, so the redirect is not cached
      return reply.redirect(delivery.redirectTo, 302);
    }
    // the global hook says no-store; a valid link may be cached by the browser until it expires
    reply.header('Cache-Control', `private, max-age=${delivery.maxAgeSeconds}`);
    reply.header('Content-Type', delivery.contentType);
    if (delivery.range?.satisfiable === false) {
      delivery.stream.destroy();
      reply.header('Content-Range', `bytes */${delivery.range.total}`);
      return reply.code(416).send();
    }
    if (delivery.range) {
      reply.code(206);
      reply.header('Content-Range', `bytes ${delivery.range.start}-${delivery.range.end}/${delivery.range.total}`);
    }
    // originals may be fetched in parts (a player seeking, a download resumed); derived images are sent whole
    if (!['preview', 'derived'].includes(params.purpose)) reply.header('Accept-Ranges', 'bytes');
    reply.header('Content-Length', String(delivery.size));
    // user content is never sniffed into HTML nor run as a document of this origin
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Content-Security-Policy', 'sandbox');
    if (delivery.downloadName !== null) reply.header('Content-Disposition', attachment(delivery.downloadName));
    if (request.method === 'HEAD') {
      // Fastify's HEAD route reads a stream to its end to discard it: a HEAD of a 1 GiB file in S3 fetched the whole object
      delivery.stream.destroy();
      return reply.send(Readable.from([]));
    }
    return reply.send(delivery.stream);
  });
}
