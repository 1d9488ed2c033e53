/**
 * URLs in the adapters (docs/architecture.md "Public URLs"): the core decides what a link signs and
 * until when; src/public-urls.ts composes the public URLs of `/files/...` and `/s/...` and parses
 * them back, once. No core module composes either path or takes PUBLIC_BASE_URL.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LinkSigner } from '../../src/core/assets/delivery/links.ts';
import { fileLinkParts, publicUrls } from '../../src/public-urls.ts';
import { literalsIn } from '../support/sql-statements.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const SECRET = 'public-urls-test-secret-public-urls-test';

function coreFiles(): string[] {
  return readdirSync(join(ROOT, 'src/core'), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

/** The path and query of a composed file link, as the `/files/:teamId/:fileId/:purpose` route hands them over. */
function requestOf(url: string) {
  const { pathname, searchParams } = new URL(url);
  const [, files, teamId, fileId, purpose] = pathname.split('/');
  expect(files).toBe('files');
  return { params: { teamId: teamId!, fileId: fileId!, purpose: purpose! }, query: Object.fromEntries(searchParams) };
}

describe('public URLs', () => {
  it('the core composes no /files or /s URL: no template literal in src/core builds either path', () => {
    const composing = coreFiles().flatMap((file) =>
      literalsIn(file, readFileSync(join(ROOT, file), 'utf8'))
        .filter((literal) => literal.template && /\/(?:files|s)\//.test(literal.text))
        .map((literal) => `${file}:${literal.line} ${literal.text}`),
    );
    expect(composing, 'compose public URLs in src/public-urls.ts; the core returns signed parts').toEqual([]);
  });

  it('no core service takes PUBLIC_BASE_URL: only createCore reads it, for the hosts brand logos may name', () => {
    const readers = coreFiles().filter((file) => /publicBaseUrl/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(readers).toEqual(['src/core/core.ts']);
    const uses = readFileSync(join(ROOT, 'src/core/core.ts'), 'utf8').match(/.*publicBaseUrl.*/g);
    expect(uses).toEqual([expect.stringContaining('const logoHosts = ')]);
  });

  it('a signed file link composes under PUBLIC_BASE_URL and parses back to the target it signed', () => {
    const signer = new LinkSigner(SECRET, publicUrls('https://shelf.example.com/').fileLink);
    const expiresAt = Math.floor(Date.now() / 1000) + 600;
    const url = signer.sign({ teamId: 7, fileId: 42, purpose: 'download' }, expiresAt);
    const parts = signer.signParts({ teamId: 7, fileId: 42, purpose: 'download' }, expiresAt);
    expect(url).toBe(`https://shelf.example.com/files/7/42/download?exp=${expiresAt}&sig=${parts.sig}`);
    const { params, query } = requestOf(url);
    expect(signer.verify(fileLinkParts(params, query))).toEqual({ teamId: 7, fileId: 42, purpose: 'download', expiresAt });
  });

  it("a derived image's link carries its signed recipe as v, first in the query", () => {
    const signer = new LinkSigner(SECRET, publicUrls('https://shelf.example.com').fileLink);
    const expiresAt = Math.floor(Date.now() / 1000) + 600;
    const url = signer.sign({ teamId: 7, fileId: 42, purpose: 'derived', variant: 'w200-webp' }, expiresAt);
    expect(url).toMatch(new RegExp(`^https://shelf\\.example\\.com/files/7/42/derived\\?v=w200-webp&exp=${expiresAt}&sig=[A-Za-z0-9_-]{43}$`));
    const { params, query } = requestOf(url);
    expect(signer.verify(fileLinkParts(params, query))).toEqual({ teamId: 7, fileId: 42, purpose: 'derived', expiresAt, variant: 'w200-webp' });
  });

  it('a repeated query parameter of a file link counts as absent, so the link is refused with 403 forbidden', () => {
    const signer = new LinkSigner(SECRET, publicUrls('https://shelf.example.com').fileLink);
    const url = signer.sign({ teamId: 7, fileId: 42, purpose: 'preview' }, Math.floor(Date.now() / 1000) + 600);
    const { params, query } = requestOf(url);
    const parts = fileLinkParts(params, { ...query, sig: [query.sig!, query.sig!] });
    expect(parts.sig).toBeUndefined();
    expect(() => signer.verify(parts)).toThrow(expect.objectContaining({ code: 'forbidden' }));
  });

  it("a share's page URL is PUBLIC_BASE_URL, /s/ and the token, whatever trailing slashes the base has", () => {
    expect(publicUrls('https://shelf.example.com//').sharePage('abc_DEF-123')).toBe('https://shelf.example.com/s/abc_DEF-123');
  });
});
