import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ShareAccessGrant, ShareVisit } from '../../core/catalogue/products/product-share-page.service.ts';
import type { Core } from '../../core/core.ts';
import { DomainError } from '../../core/platform/errors.ts';
import { SHARE_PAGE_ROUTE, sharePagePath } from '../../public-urls.ts';
import { replyWithZip } from '../download-reply.ts';
import { FAVICON_PATH, FAVICON_SVG } from '../share-page/favicon.ts';
import type { SafeHtml } from '../share-page/html.ts';
import { STYLE_SOURCE } from '../share-page/layout.ts';
import { messagePage, passwordPage, productPage } from '../share-page/pages.ts';

/** The cookie holding proof of a protected share's password; scoped to that share's path. */
const ACCESS_COOKIE = 'shelf_share_access';

/** What each failure looks like to a visitor: the status and the words of the page. */
const FAILURE_PAGES: Partial<Record<string, { status: number; title: string; message: string }>> = {
  share_not_found: {
    status: 404,
    title: 'Link not found',
    message: 'This link does not lead to a shared product. Check that it was copied completely, or ask the sender for a new one.',
  },
  share_expired: {
    status: 410,
    title: 'This link has expired',
    message: 'The shared product is no longer available through this link. Ask the sender for a new one.',
  },
  share_revoked: {
    status: 410,
    title: 'This link is no longer active',
    message: 'The sender has stopped sharing this product. Ask them for a new link if you still need it.',
  },
  forbidden: { status: 403, title: 'Download not offered', message: 'This share shows the product but does not offer its files as a download.' },
  not_found: { status: 404, title: 'Nothing to download', message: 'The shared files are no longer in the library.' },
  payload_too_large: {
    status: 413,
    title: 'Too large to download',
    message: 'The shared files exceed the download limit of 100 files or 2 GB. Ask the sender to share fewer files.',
  },
  too_many_attempts: { status: 429, title: 'Too many attempts', message: 'Too many wrong passwords were tried. Wait a few minutes, then try again.' },
  mutation_response_unavailable: {
    status: 409,
    title: 'Download unavailable right now',
    message: 'The files could not be delivered just now. Please try again in a moment.',
  },
  service_unavailable: { status: 503, title: 'Temporarily unavailable', message: 'Shelf cannot answer right now. Please try again in a moment.' },
};

/**
 * The page a product share's link opens (docs/products.md "Shares"): server-rendered HTML for
 * people without an API key, outside /v1 because the token in the path is the credential. Every
 * failure is a page with its status (404 unknown, 410 expired or revoked, 403 wrong password, 429
 * throttled), never the API's JSON envelope.
 */
export async function sharePageRoutes(app: FastifyInstance, { core }: { core: Core }): Promise<void> {
  // the password form posts urlencoded; only in this plugin, and 4 KiB is plenty for one field
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  const secureCookie = new URL(core.config.publicBaseUrl).protocol === 'https:';
  const imageOrigin = new URL(core.config.publicBaseUrl).origin;

  const visitOf = (request: FastifyRequest, password?: string): ShareVisit => {
    // cast kept: the share-page routes have no params schema for a type provider to read (the core checks the token)
    const token = (request.params as { token: string }).token;
    const cookies = parseCookie(request.headers.cookie ?? '');
    return { token, password, proof: cookies[ACCESS_COOKIE], client: request.ip, requestId: request.id };
  };

  const sendPage = (reply: FastifyReply, status: number, page: SafeHtml) => {
    // no script at all; images only from Shelf's own signed links; the one inline stylesheet by hash
    reply.header(
      'Content-Security-Policy',
      `default-src 'none'; img-src 'self' ${imageOrigin}; style-src ${STYLE_SOURCE}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
    );
    // the token is in the URL: never sent onwards as a Referer
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('X-Robots-Tag', 'noindex, nofollow');
    return reply.status(status).type('text/html; charset=utf-8').send(page.value);
  };

  /** `promptStatus`: the password prompt's status: 200 when it is the page itself, 403 when it answers a form post or a download. */
  const sendFailure = (request: FastifyRequest, reply: FastifyReply, error: unknown, promptStatus = 200) => {
    // cast kept: as in visitOf, no params schema on these routes
    const pagePath = sharePagePath((request.params as { token: string }).token);
    if (error instanceof DomainError) {
      if (error.code === 'share_password_required') return sendPage(reply, promptStatus, passwordPage(pagePath, null));
      if (error.code === 'share_password_invalid') return sendPage(reply, 403, passwordPage(pagePath, 'That password is not right. Try again.'));
      const failure = FAILURE_PAGES[error.code];
      if (failure) {
        if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(error.retryAfterSeconds));
        if (error.code === 'service_unavailable' && error.retryAfterSeconds === undefined) reply.header('Retry-After', '5');
        const message = error.reason === 'product_unavailable' ? 'The shared product is no longer available.' : failure.message;
        return sendPage(reply, failure.status, messagePage(failure.title, message));
      }
    }
    request.log.error({ err: error }, 'share page failed');
    return sendPage(reply, 500, messagePage('Something went wrong', 'The page could not be shown. Please try again later.'));
  };

  const grantCookie = (reply: FastifyReply, token: string, grant: ShareAccessGrant) => {
    reply.header(
      'Set-Cookie',
      stringifySetCookie({
        name: ACCESS_COOKIE,
        value: grant.proof,
        path: sharePagePath(token),
        maxAge: Math.max(1, Math.floor((grant.expiresAtMs - Date.now()) / 1000)),
        httpOnly: true,
        // Lax: a link followed from an e-mail or chat still carries it
        sameSite: 'lax',
        secure: secureCookie,
      }),
    );
  };

  app.get(
    FAVICON_PATH,
    {
      schema: { hide: true, summary: 'The share page icon', description: 'An SVG icon the share page links in its head.' },
    },
    async (_request, reply) => {
      // the same bytes for everyone and for every release: browsers may keep it for a day
      reply.header('Cache-Control', 'public, max-age=86400');
      reply.header('Content-Security-Policy', "default-src 'none'");
      reply.header('X-Content-Type-Options', 'nosniff');
      return reply.type('image/svg+xml').send(FAVICON_SVG);
    },
  );

  app.get(
    SHARE_PAGE_ROUTE,
    {
      schema: {
        hide: true,
        summary: 'Open a product share',
        description: 'The shared product as an HTML page (or the password prompt). Not part of the JSON API.',
      },
    },
    async (request, reply) => {
      try {
        const visit = visitOf(request);
        const { view } = await core.catalogue.sharePages.open(core.operatorCtx(), visit);
        return sendPage(reply, 200, productPage(view, `${sharePagePath(visit.token)}/download`));
      } catch (error) {
        return sendFailure(request, reply, error);
      }
    },
  );

  app.post(
    SHARE_PAGE_ROUTE,
    {
      schema: {
        hide: true,
        summary: 'Enter a share password',
        description: 'The password form of a protected share; a right password sets an access cookie and redirects to the page (303).',
      },
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const password = typeof body.password === 'string' ? body.password : '';
      try {
        const visit = visitOf(request, password);
        const { grant } = await core.catalogue.sharePages.open(core.operatorCtx(), visit);
        if (grant) grantCookie(reply, visit.token, grant);
        // post/redirect/get: reloading the page does not send the password again
        return reply.status(303).header('Location', sharePagePath(visit.token)).send();
      } catch (error) {
        return sendFailure(request, reply, error, 403);
      }
    },
  );

  app.get(
    `${SHARE_PAGE_ROUTE}/download`,
    {
      schema: {
        hide: true,
        summary: 'Download a product share',
        description: 'The shared files as one ZIP attachment, recorded as a download made through the share.',
      },
    },
    async (request, reply) => {
      try {
        const visit = visitOf(request);
        const download = await core.catalogue.sharePages.download(core.operatorCtx(), visit);
        return await replyWithZip(reply, core, download, `shared-product-download-${download.recordId}.zip`);
      } catch (error) {
        return sendFailure(request, reply, error, 403);
      }
    },
  );
}
