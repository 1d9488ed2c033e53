/*
 * The share page's icon: a small SVG served by Shelf itself (the page requests nothing from
 * elsewhere, and its Content-Security-Policy allows images only from Shelf). Three shelf boards on
 * the page's accent colour, legible at 16 px.
 */

export const FAVICON_PATH = '/favicon.svg';

export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0a58ca"/><path d="M8 10.5h16M8 16h16M8 21.5h16" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>';
