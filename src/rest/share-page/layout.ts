import { createHash } from 'node:crypto';
import { FAVICON_PATH } from './favicon.ts';
import { html, SafeHtml } from './html.ts';

/*
 * One small stylesheet, inline (the page has no build step and loads nothing else): readable on
 * a phone (fluid width, system fonts, 16 px minimum so iOS does not zoom into the form), light and
 * dark by the visitor's preference.
 */
const STYLE = `
:root { color-scheme: light dark; --fg: #1d1d1f; --muted: #5f6368; --line: #d9d9de; --bg: #fff; --card: #f5f5f7; --accent: #0a58ca; }
@media (prefers-color-scheme: dark) { :root { --fg: #ececf1; --muted: #a0a0aa; --line: #3a3a40; --bg: #161618; --card: #222226; --accent: #7fb0ff; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
h1 { font-size: 1.75rem; line-height: 1.2; margin: 0 0 .25rem; overflow-wrap: anywhere; }
.sku { color: var(--muted); margin: 0 0 1rem; }
.description { white-space: pre-wrap; overflow-wrap: anywhere; }
dl.fields { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: .35rem 1rem; margin: 1.25rem 0; }
dl.fields dt { color: var(--muted); }
dl.fields dd { margin: 0; overflow-wrap: anywhere; min-width: 0; }
@media (max-width: 32rem) { dl.fields { grid-template-columns: 1fr; gap: 0; } dl.fields dt { font-size: .875rem; margin-top: .75rem; } }
a { color: var(--accent); }
.multiline { white-space: pre-wrap; }
.colour { display: inline-flex; align-items: center; gap: .5rem; font-variant-numeric: tabular-nums; }
.swatch rect { stroke: var(--muted); stroke-width: 1; }
.rich > :first-child { margin-top: 0; }
.rich > :last-child { margin-bottom: 0; }
.rich p, .rich ul, .rich ol, .rich pre, .rich blockquote { margin: 0 0 .5rem; }
.rich h3, .rich h4 { font-size: 1rem; margin: .75rem 0 .25rem; }
.rich ul, .rich ol { padding-left: 1.25rem; }
.rich blockquote { border-left: 3px solid var(--line); padding-left: .75rem; color: var(--muted); }
.rich code, .rich pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .9em; }
.rich pre { white-space: pre-wrap; background: var(--card); padding: .5rem .75rem; border-radius: .375rem; }
.thumbs { display: flex; flex-wrap: wrap; gap: .5rem; list-style: none; margin: 0; padding: 0; }
.thumbs figure { margin: 0; width: 6rem; }
.thumbs img { display: block; width: 6rem; height: 6rem; object-fit: contain; background: var(--card); border-radius: .375rem; }
.thumbs figcaption { font-size: .75rem; color: var(--muted); overflow-wrap: anywhere; }
.field-files { list-style: none; margin: 0; padding: 0; }
.size { color: var(--muted); font-size: .875rem; }
.gallery { display: grid; grid-template-columns: repeat(auto-fill, minmax(10rem, 1fr)); gap: .75rem; margin: 1.25rem 0; padding: 0; list-style: none; }
.gallery figure { margin: 0; background: var(--card); border-radius: .5rem; overflow: hidden; }
.gallery img { display: block; width: 100%; height: 10rem; object-fit: contain; background: var(--card); }
.gallery figcaption, .files li { font-size: .875rem; padding: .4rem .6rem; overflow-wrap: anywhere; }
.files { padding: 0; list-style: none; border-top: 1px solid var(--line); }
.files li { border-bottom: 1px solid var(--line); }
.button { display: inline-block; padding: .7rem 1.2rem; border-radius: .5rem; border: 0; background: var(--accent); color: var(--bg); font: inherit; font-weight: 600; text-decoration: none; cursor: pointer; }
.meta { color: var(--muted); font-size: .875rem; margin-top: 2rem; }
form.password { display: grid; gap: .75rem; max-width: 22rem; margin-top: 1.5rem; }
input[type=password] { font: inherit; padding: .6rem .7rem; border: 1px solid var(--line); border-radius: .5rem; background: var(--bg); color: var(--fg); }
.error { color: #c5221f; }
@media (prefers-color-scheme: dark) { .error { color: #ff8a80; } }
`;

/** For the Content-Security-Policy: this stylesheet and no other may apply. */
export const STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** A complete document around `body`. */
export function layout(title: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">
<title>${title}</title>
<style>${new SafeHtml(STYLE)}</style>
</head>
<body><main>${body}</main></body>
</html>`;
}
