import type { SharePageField, SharePageMedia } from '../../core/catalogue/products/product-share-page.service.ts';
import { formatDate, formatDateRange, formatList, formatMoney, formatNumber, formatQuantity, humanBytes } from './format.ts';
import { html, httpUrl, LINK_REL, type SafeHtml } from './html.ts';
import { richDeltaRemembered, richHtmlRemembered } from './rich-text-memo.ts';

/*
 * A template value as a person reads it on the share page (docs/products.md "How the page reads
 * values"): option labels rather than option values, amounts with their currency, numbers with
 * their unit, dates written out, links only to http(s) addresses. The API keeps answering the
 * stored values; this is only the page's presentation. A value whose shape does not match its
 * field's type (which validation prevents) is still shown, as plain text, never dropped or fatal.
 */

interface Option {
  value: string;
  label: string;
  sortOrder: number;
}

function optionsOf(config: Record<string, unknown>): Option[] {
  const options = Array.isArray(config.options) ? config.options : [];
  return options.filter((o): o is Option => o !== null && typeof o === 'object' && typeof o.value === 'string' && typeof o.label === 'string');
}

/** An option's label; the stored value itself when no option has it. */
function labelOf(options: readonly Option[], value: string): string {
  return options.find((o) => o.value === value)?.label ?? value;
}

/** Any value as text, for values whose shape does not fit their type. */
function plain(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return formatNumber(value);
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.map(plain).join(', ');
  return JSON.stringify(value) ?? '';
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const HEX_COLOUR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

/** The `<dd>` content for one field; the page leaves a field out when this is null (nothing of it to show). */
export function fieldValue(field: SharePageField, media: ReadonlyMap<number, SharePageMedia>): SafeHtml | null {
  const { value, config } = field;
  switch (field.type) {
    case 'text':
      if (isString(value)) return html`${value}`;
      break;
    case 'textarea':
      // the line breaks the author typed are part of the text
      if (isString(value)) return html`<span class="multiline">${value}</span>`;
      break;
    case 'email':
      if (isString(value)) return emailLink(value);
      break;
    case 'phone':
      if (isString(value)) return phoneLink(value);
      break;
    case 'url':
      if (isString(value)) {
        const href = httpUrl(value);
        return href ? html`<a href="${href}" rel="${LINK_REL}">${value}</a>` : html`${value}`;
      }
      break;
    case 'color':
      if (isString(value) && HEX_COLOUR.test(value)) {
        // a drawn swatch (an SVG fill, not a style attribute, so the page's CSP stays as strict) and the code to quote
        return html`<span class="colour"><svg class="swatch" width="20" height="20" viewBox="0 0 20 20" aria-hidden="true"><rect x=".5" y=".5" width="19" height="19" rx="4" fill="${value}"/></svg>${value.toUpperCase()}</span>`;
      }
      break;
    case 'date': {
      const text = formatDate(value);
      if (text) return html`<time datetime="${value}">${text}</time>`;
      break;
    }
    case 'dateRange': {
      const text = Array.isArray(value) && value.length === 2 ? formatDateRange(value[0], value[1]) : null;
      if (text) return html`${text}`;
      break;
    }
    case 'number':
      if (isNumber(value)) return html`<data value="${value}">${formatQuantity(value, isString(config.unit) ? config.unit : null)}</data>`;
      break;
    case 'currency':
      if (isNumber(value) && isString(config.code) && isString(config.symbol)) {
        const decimals = Number.isInteger(config.decimals) ? Math.min(Math.max(config.decimals as number, 0), 20) : 2;
        return html`<data value="${value}">${formatMoney(value, { code: config.code, symbol: config.symbol, decimals })}</data>`;
      }
      break;
    case 'richtext':
      if (isString(value)) return html`<div class="rich">${richHtmlRemembered(value)}</div>`;
      if (value !== null && typeof value === 'object' && Array.isArray((value as { ops?: unknown }).ops)) {
        return html`<div class="rich">${richDeltaRemembered(value as { ops: unknown[] })}</div>`;
      }
      break;
    case 'select':
    case 'radio':
      if (isString(value)) return html`${labelOf(optionsOf(config), value)}`;
      break;
    case 'checkbox':
      if (Array.isArray(value) && value.every(isString)) {
        // in the template's order of options, as the author arranged them, not the order they were ticked
        const options = optionsOf(config);
        const rank = (v: string) => options.find((o) => o.value === v)?.sortOrder ?? Number.MAX_SAFE_INTEGER;
        const chosen = [...value].sort((a, b) => rank(a) - rank(b));
        return chosen.length === 0 ? null : html`${formatList(chosen.map((v) => labelOf(options, v)))}`;
      }
      break;
    case 'image':
    case 'file':
      if (Array.isArray(value)) return mediaValue(field.type, value, media);
      break;
  }
  const text = plain(value);
  return text.trim() === '' ? null : html`${text}`;
}

/** A mailto: link the page builds from the validated address (each part percent-encoded, so no `?cc=` can ride along). */
function emailLink(address: string): SafeHtml {
  const at = address.lastIndexOf('@');
  if (at <= 0) return html`${address}`;
  const href = `mailto:${encodeURIComponent(address.slice(0, at))}@${encodeURIComponent(address.slice(at + 1))}`;
  return html`<a href="${href}">${address}</a>`;
}

/** A tel: link of the number's digits (and its leading +), the number shown as written. */
function phoneLink(number: string): SafeHtml {
  const digits = number.replace(/\D/g, '');
  if (digits.length < 3) return html`${number}`;
  return html`<a href="tel:${number.trim().startsWith('+') ? '+' : ''}${digits}">${number}</a>`;
}

/** An image field's pictures (the page's own preview links) or a file field's files, by name and size. */
function mediaValue(type: 'image' | 'file', ids: readonly unknown[], media: ReadonlyMap<number, SharePageMedia>): SafeHtml | null {
  const files = ids.flatMap((id) => (typeof id === 'number' && media.has(id) ? [media.get(id)!] : []));
  if (files.length === 0) return null;
  if (type === 'image') {
    return html`<ul class="thumbs">${files.map(
      (m) =>
        html`<li><figure>${
          m.previewUrl
            ? html`<img src="${m.previewUrl}" alt="${m.name}" loading="lazy"${m.width && m.height ? html` width="${m.width}" height="${m.height}"` : ''}>`
            : ''
        }<figcaption>${m.name}</figcaption></figure></li>`,
    )}</ul>`;
  }
  return html`<ul class="field-files">${files.map((m) => html`<li>${m.name} <span class="size">· ${humanBytes(Number(m.size))}</span></li>`)}</ul>`;
}
