import type { LinkParts, SignedFileLink } from './core/assets/delivery/links.ts';
import type { PublicUrls } from './core/core.ts';

/**
 * The public paths Shelf serves outside /v1, composed and parsed here only: signed file links
 * (CONTRACT.md `/files/...`, spec 8) and the page a product share's link opens (docs/products.md
 * "Shares"). The core signs (what, until when, src/core/assets/delivery/links.ts and
 * share-links.ts); the REST routes serve these paths, and every adapter that hands out a link
 * (REST and GraphQL answers, the CLI, workers) gets it through the composers given to createCore.
 */

/** The route of a signed file link; its query carries `v` (a derived image's recipe), `exp` and `sig`. */
export const FILE_LINK_ROUTE = '/files/:teamId/:fileId/:purpose';

/** The route of a product share's page; `/download` and the password form hang off it. */
export const SHARE_PAGE_ROUTE = '/s/:token';

/** A signed file link's path and query. */
function fileLinkPath(link: SignedFileLink): string {
  const variant = link.purpose === 'derived' ? `v=${link.variant}&` : '';
  return `/files/${link.teamId}/${link.fileId}/${link.purpose}?${variant}exp=${link.expiresAt}&sig=${link.sig}`;
}

/** The path of the page a share's token opens (a token from a request may hold anything, so it is encoded). */
export function sharePagePath(token: string): string {
  return `/s/${encodeURIComponent(token)}`;
}

/** The composers createCore takes: absolute URLs under PUBLIC_BASE_URL. */
export function publicUrls(publicBaseUrl: string): PublicUrls {
  const base = publicBaseUrl.replace(/\/+$/, '');
  return {
    fileLink: (link) => `${base}${fileLinkPath(link)}`,
    sharePage: (token) => `${base}${sharePagePath(token)}`,
  };
}

/** A file link's parts as a request to FILE_LINK_ROUTE brought them; a repeated query parameter counts as absent. */
export function fileLinkParts(params: { teamId: string; fileId: string; purpose: string }, query: Record<string, string | string[] | undefined>): LinkParts {
  const single = (value: string | string[] | undefined) => (Array.isArray(value) ? undefined : value);
  return { ...params, exp: single(query.exp), sig: single(query.sig), variant: single(query.v) };
}
