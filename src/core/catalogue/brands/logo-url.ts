import { invalid } from '../../platform/errors.ts';

/**
 * Normalizes a brand logo URL (spec 4.2): http(s) only, no credentials, host on the allowlist,
 * query and fragment removed, at most 512 characters. Null or empty clears (returns null).
 */
export function normalizeLogoUrl(raw: string | null | undefined, allowedHosts: readonly string[]): string | null {
  if (raw === null || raw === undefined || raw.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid('logoUrl', 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('logoUrl', 'must use http or https');
  if (url.username || url.password) throw invalid('logoUrl', 'must not contain credentials');
  const host = url.hostname.toLowerCase();
  if (!allowedHosts.includes(host)) throw invalid('logoUrl', `host ${host} is not on the logo host allowlist`);
  url.search = '';
  url.hash = '';
  const normalized = url.toString();
  if (normalized.length > 512) throw invalid('logoUrl', 'must be at most 512 characters');
  return normalized;
}

/** Website links shown to clients: http(s) only, no credentials; null or empty clears. */
export function normalizeWebsite(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined || raw.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid('website', 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('website', 'must use http or https');
  if (url.username || url.password) throw invalid('website', 'must not contain credentials');
  return raw.trim();
}
