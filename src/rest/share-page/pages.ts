import type { SharePageView } from '../../core/catalogue/products/product-share-page.ts';
import { html, type SafeHtml } from './html.ts';
import { layout } from './layout.ts';

/** Bytes as people read them: 1.5 MB, 820 kB (decimal units, as file managers show them). */
export function humanBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB'];
  let value = bytes;
  let unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** "25 November 2026, 17:04 UTC": unambiguous to any reader. */
function readableTime(iso: string): string {
  return `${new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(iso))} UTC`;
}

/** The shared product: name, description, template values, previews, other files, the download. */
export function productPage(view: SharePageView, downloadPath: string): SafeHtml {
  const { product } = view;
  const previews = view.media.filter((m) => m.previewUrl !== null);
  const others = view.media.filter((m) => m.previewUrl === null);
  const body = html`
<article>
  <h1>${product.name}</h1>
  ${product.spu ? html`<p class="sku">SKU ${product.spu}</p>` : ''}
  ${product.description ? html`<p class="description">${product.description}</p>` : ''}
  ${product.fields.length > 0 ? html`<dl class="fields">${product.fields.map((f) => html`<dt>${f.label}</dt><dd>${f.value}</dd>`)}</dl>` : ''}
  ${previews.length > 0
    ? html`<ul class="gallery" aria-label="Images">${previews.map((m) => html`<li><figure><img src="${m.previewUrl}" alt="${m.name}" loading="lazy"${m.width && m.height ? html` width="${m.width}" height="${m.height}"` : ''}><figcaption>${m.name}</figcaption></figure></li>`)}</ul>`
    : ''}
  ${others.length > 0 ? html`<ul class="files" aria-label="Files">${others.map((m) => html`<li>${m.name} · ${humanBytes(Number(m.size))}</li>`)}</ul>` : ''}
  ${view.download
    ? html`<p><a class="button" href="${downloadPath}" download>Download all (${view.download.fileCount} ${view.download.fileCount === 1 ? 'file' : 'files'}, ${humanBytes(view.download.totalBytes)})</a></p>`
    : ''}
  <p class="meta">Shared with you through Shelf. This link works until ${readableTime(view.expiresAt)}.</p>
</article>`;
  return layout(product.name, body);
}

/** The password prompt; `error` after a wrong password. */
export function passwordPage(action: string, error: string | null): SafeHtml {
  return layout('Password required', html`
<h1>Password required</h1>
<p>This shared product is protected. Enter the password you were given.</p>
<form class="password" method="post" action="${action}">
  <label for="password">Password</label>
  <input type="password" id="password" name="password" required autofocus autocomplete="current-password"${error ? html` aria-invalid="true" aria-describedby="password-error"` : ''}>
  ${error ? html`<p class="error" id="password-error" role="alert">${error}</p>` : ''}
  <button class="button" type="submit">Open</button>
</form>`);
}

/** A page that explains why there is nothing to show (unknown, expired, revoked link, ...). */
export function messagePage(title: string, message: string): SafeHtml {
  return layout(title, html`<h1>${title}</h1><p>${message}</p>`);
}
