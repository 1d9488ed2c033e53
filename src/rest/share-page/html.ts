/** HTML that is already safe to emit: built by `html`, never from raw user text. */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for element content and quoted attribute values: the five characters HTML gives meaning to, escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function part(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(part).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * A template whose interpolations are escaped unless they are `SafeHtml` (nested templates):
 * product names, descriptions and file names are user content and can never become markup.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += part(value) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

/** Every link to somewhere else: no window handle, no Referer (the page's URL holds the token), no endorsement for crawlers. */
export const LINK_REL = 'noopener noreferrer nofollow';

/**
 * The address a user-supplied link may point to: an absolute http(s) URL, normalized as a browser
 * would (`URL.href`); null for anything else (`javascript:`, `data:`, relative paths), which
 * is then shown as text.
 */
export function httpUrl(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  try {
    const url = new URL(raw.trim());
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url.href : null;
  } catch {
    return null;
  }
}
