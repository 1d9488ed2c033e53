import contentDisposition from 'content-disposition';

/**
 * RFC 6266 `Content-Disposition: attachment` through the `content-disposition` package (RFC 5987
 * encoding of the exact name, quoting of the fallback), with an ASCII-only fallback name: a
 * Latin-1 name sent as raw header bytes is read differently by different clients, so every
 * non-ASCII name also gets the UTF-8 `filename*`.
 */
export function attachment(name: string): string {
  return contentDisposition(name, { fallback: name.replace(/[^\x20-\x7e]/g, '_') });
}
