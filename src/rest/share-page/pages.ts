import type { SharePageView } from '../../core/catalogue/products/product-share-page.service.ts';
import { fieldValue } from './field-values.ts';
import { formatMoment, humanBytes } from './format.ts';
import { html, type SafeHtml } from './html.ts';
import { layout } from './layout.ts';

/** The shared product: name, description, template values, previews, other files, the download. */
export function productPage(view: SharePageView, downloadPath: string): SafeHtml {
  const { product } = view;
  const previews = view.media.filter((m) => m.previewUrl !== null);
  const others = view.media.filter((m) => m.previewUrl === null);
  const mediaById = new Map(view.media.map((m) => [m.id, m]));
  const fields = product.fields.flatMap((f) => {
    const value = fieldValue(f, mediaById);
    return value ? [html`<dt>${f.label}</dt><dd>${value}</dd>`] : [];
  });
  const body = html`
<article>
  <h1>${product.name}</h1>
  ${product.spu ? html`<p class="sku">SKU ${product.spu}</p>` : ''}
  ${product.description ? html`<p class="description">${product.description}</p>` : ''}
  ${fields.length > 0 ? html`<dl class="fields">${fields}</dl>` : ''}
  ${
    previews.length > 0
      ? html`<ul class="gallery" aria-label="Images">${previews.map((m) => html`<li><figure><img src="${m.previewUrl}" alt="${m.name}" loading="lazy"${m.width && m.height ? html` width="${m.width}" height="${m.height}"` : ''}><figcaption>${m.name}</figcaption></figure></li>`)}</ul>`
      : ''
  }
  ${others.length > 0 ? html`<ul class="files" aria-label="Files">${others.map((m) => html`<li>${m.name} · ${humanBytes(Number(m.size))}</li>`)}</ul>` : ''}
  ${
    view.download
      ? html`<p><a class="button" href="${downloadPath}" download>Download all (${view.download.fileCount} ${view.download.fileCount === 1 ? 'file' : 'files'}, ${humanBytes(view.download.totalBytes)})</a></p>`
      : ''
  }
  <p class="meta">Shared with you through Shelf. This link works until ${formatMoment(view.expiresAt)}.</p>
</article>`;
  return layout(product.name, body);
}

/** The password prompt; `error` after a wrong password. */
export function passwordPage(action: string, error: string | null): SafeHtml {
  return layout(
    'Password required',
    html`
<h1>Password required</h1>
<p>This shared product is protected. Enter the password you were given.</p>
<form class="password" method="post" action="${action}">
  <label for="password">Password</label>
  <input type="password" id="password" name="password" required autofocus autocomplete="current-password"${error ? html` aria-invalid="true" aria-describedby="password-error"` : ''}>
  ${error ? html`<p class="error" id="password-error" role="alert">${error}</p>` : ''}
  <button class="button" type="submit">Open</button>
</form>`,
  );
}

/** A page that explains why there is nothing to show (unknown, expired, revoked link, ...). */
export function messagePage(title: string, message: string): SafeHtml {
  return layout(title, html`<h1>${title}</h1><p>${message}</p>`);
}
