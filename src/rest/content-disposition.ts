/** RFC 6266 `Content-Disposition: attachment`: an ASCII fallback name plus the exact UTF-8 name. */
export function attachment(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
