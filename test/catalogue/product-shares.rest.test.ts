import { beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../support/env.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { fieldIds } from '../support/given-products.ts';
import { givenTemplates } from '../support/given-templates.ts';
import { graphql, send } from '../support/http.ts';
import { type ProductWorld, useProductWorld } from '../support/product-world.ts';

const world = useProductWorld({ team: 'Shares' });
let env: TestEnv;
let team: GivenTeam;
let editor: GivenKey;
let usable: GivenKey;
let viewer: GivenKey;
let manager: GivenKey;
let stranger: GivenKey;
let gp: ProductWorld['gp'];

beforeAll(() => {
  ({ env, team, gp, stranger } = world);
  ({ editable: editor, usable, view_only: viewer, manage: manager } = world.keys);
});

const share = (productId: number, key: GivenKey, body: unknown = {}, headers: Record<string, string> = {}) =>
  send(env, { method: 'POST', url: `/v1/products/${productId}/shares`, key: key.key, body, headers });

async function shareRows(teamId = team.teamId): Promise<Record<string, unknown>[]> {
  return env.orm.em.fork().execute('select * from product_shares where team_id = ? order by id', [teamId]);
}

/** The path of a share's page, from its url. */
const pathOf = (url: string) => new URL(url).pathname;

function page(path: string, options: { method?: 'GET' | 'POST'; cookie?: string; password?: string } = {}) {
  return env.app.inject({
    method: options.method ?? 'GET',
    url: path,
    headers: {
      ...(options.cookie ? { cookie: options.cookie } : {}),
      ...(options.password !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    payload: options.password !== undefined ? new URLSearchParams({ password: options.password }).toString() : undefined,
  });
}

describe('POST /v1/products/{id}/shares', () => {
  it('creates a share of a published product for usable: a link, its settings, active, and an activity record; no ETag', async () => {
    const image = await gp.image(team, 'front.png');
    const product = await gp.published(editor, { imageAssetIds: [image] });
    const created = await share(product.id, usable, { expiresAt: new Date(Date.now() + 3 * 86_400_000).toISOString(), allowDownload: false });
    expect(created.status).toBe(201);
    expect(created.headers.etag).toBeUndefined();
    expect(created.body.data).toMatchObject({
      productId: product.id,
      status: 'active',
      passwordProtected: false,
      assetIds: null,
      allowDownload: false,
      revokedAt: null,
      actor: `key:${usable.keyId}`,
      keyId: usable.keyId,
      role: 'usable',
    });
    expect(created.body.data.url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/s\/[A-Za-z0-9_-]{43}$/);
    const activity = await send(env, { url: `/v1/activity-records?resourceType=share&resourceId=${created.body.data.id}`, key: manager.key });
    expect(activity.body.data).toMatchObject([
      { resourceType: 'share', resourceId: String(created.body.data.id), action: 'created', actor: `key:${usable.keyId}` },
    ]);
  });

  it('keeps no token in the database: only its SHA-256 and the nonce it is derived from with the secret', async () => {
    const product = await gp.published(editor, {});
    const created = await share(product.id, usable, { password: 'open sesame' });
    const token = pathOf(created.body.data.url).split('/')[2]!;
    const [row] = (await shareRows()).filter((r) => r.id === created.body.data.id);
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain('open sesame');
    expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(String(row!.password_hash)).toMatch(/^scrypt\$16384\$8\$1\$/);
  });

  it('a usable key cannot share a draft (404, nothing stored); view_only may not share (403); editable may share a draft', async () => {
    const draft = await gp.product(editor, {});
    const before = (await shareRows()).length;
    expect((await share(draft.id, usable)).status).toBe(404);
    const published = await gp.published(editor, {});
    const forbidden = await share(published.id, viewer);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('forbidden');
    expect((await shareRows()).length).toBe(before);
    const ofDraft = await share(draft.id, editor);
    expect(ofDraft.status).toBe(201);
    expect((await page(pathOf(ofDraft.body.data.url))).statusCode).toBe(200);
  });

  it('refuses bad input with 422 validation_failed naming the field, and stores nothing', async () => {
    const [a] = await gp.textFiles(team, 1, 'mine');
    const product = await gp.published(editor, { relatedAssetIds: [a!] });
    const elsewhere = await gp.textFile(team, 'elsewhere.txt');
    const before = await shareRows();
    const cases: [unknown, string][] = [
      [{ expiresAt: new Date(Date.now() - 1000).toISOString() }, 'expiresAt'],
      [{ expiresAt: new Date(Date.now() + 400 * 86_400_000).toISOString() }, 'expiresAt'],
      [{ expiresAt: 'tomorrow' }, 'expiresAt'],
      [{ password: '    ' }, 'password'],
      [{ password: 'abc' }, 'password'],
      [{ assetIds: [] }, 'assetIds'],
      [{ assetIds: [a, elsewhere] }, 'assetIds'],
      [{ allowDownload: 'yes' }, 'allowDownload'],
      [{ audience: 'public' }, 'audience'],
    ];
    for (const [body, field] of cases) {
      const res = await share(product.id, usable, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(
        res.body.details.map((d: { field: string }) => d.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    expect(await shareRows()).toEqual(before);
  });

  it("never outlives the creating key: a later expiresAt is 422, and the default stops at the key's expiry", async () => {
    const keyExpiry = new Date(Date.now() + 2 * 86_400_000);
    const shortLived = await given(env).key(team, 'usable', keyExpiry.toISOString());
    const product = await gp.published(editor, {});
    const tooLate = await share(product.id, shortLived, { expiresAt: new Date(keyExpiry.getTime() + 3_600_000).toISOString() });
    expect(tooLate.status).toBe(422);
    expect(tooLate.body.details[0]).toMatchObject({ field: 'expiresAt' });
    const byDefault = await share(product.id, shortLived);
    expect(byDefault.status).toBe(201);
    expect(Date.parse(byDefault.body.data.expiresAt)).toBe(keyExpiry.getTime());
    const plain = await share(product.id, usable);
    expect(Date.parse(plain.body.data.expiresAt) - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
  });

  it('replays with the same Idempotency-Key: the same share and link, no second share', async () => {
    const product = await gp.published(editor, {});
    const first = await share(product.id, usable, { password: 'pass-1234' }, { 'idempotency-key': 'share-once' });
    const before = (await shareRows()).length;
    const again = await share(product.id, usable, { password: 'pass-1234' }, { 'idempotency-key': 'share-once' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expect((await shareRows()).length).toBe(before);
    const different = await share(product.id, usable, { password: 'other-pass' }, { 'idempotency-key': 'share-once' });
    expect(different.status).toBe(409);
    expect(different.body.code).toBe('idempotency_key_reused');
  });
});

describe('GET /v1/products/{id}/shares and DELETE .../shares/{shareId}', () => {
  it("lists a product's shares newest first with their status, paged, without ETag", async () => {
    const product = await gp.published(editor, {});
    const one = await share(product.id, usable);
    const two = await share(product.id, editor, { password: 'secret-1' });
    await env.orm.em.fork().execute(`update product_shares set expires_at = now() - interval '1 minute' where id = ?`, [one.body.data.id]);
    const list = await send(env, { url: `/v1/products/${product.id}/shares?pageSize=1`, key: usable.key });
    expect(list.status).toBe(200);
    expect(list.headers.etag).toBeUndefined();
    expect(list.body.pagination).toMatchObject({ page: 1, pageSize: 1, totalCount: 2, totalPages: 2 });
    expect(list.body.data).toMatchObject([{ id: two.body.data.id, status: 'active', passwordProtected: true, url: two.body.data.url }]);
    const second = await send(env, { url: `/v1/products/${product.id}/shares?page=2&pageSize=1`, key: usable.key });
    expect(second.body.data).toMatchObject([{ id: one.body.data.id, status: 'expired' }]);
    expect((await send(env, { url: `/v1/products/${product.id}/shares`, key: viewer.key })).status).toBe(403);
  });

  it("revokes a share: its page answers 410 at once; revoking again changes nothing; an unknown or other product's share is 404", async () => {
    const product = await gp.published(editor, {});
    const other = await gp.published(editor, {});
    const created = await share(product.id, usable);
    const path = pathOf(created.body.data.url);
    expect((await page(path)).statusCode).toBe(200);
    const revoked = await send(env, { method: 'DELETE', url: `/v1/products/${product.id}/shares/${created.body.data.id}`, key: usable.key });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: created.body.data.id, status: 'revoked', revokedAt: expect.stringMatching(/Z$/) });
    const gone = await page(path);
    expect(gone.statusCode).toBe(410);
    expect(gone.body).toContain('This link is no longer active');
    const again = await send(env, { method: 'DELETE', url: `/v1/products/${product.id}/shares/${created.body.data.id}`, key: usable.key });
    expect(again.body.data.revokedAt).toBe(revoked.body.data.revokedAt);
    const activity = await send(env, { url: `/v1/activity-records?resourceType=share&resourceId=${created.body.data.id}`, key: manager.key });
    expect(activity.body.data.map((r: { action: string }) => r.action)).toEqual(['revoked', 'created']);
    expect((await send(env, { method: 'DELETE', url: `/v1/products/${other.id}/shares/${created.body.data.id}`, key: usable.key })).status).toBe(404);
    expect((await send(env, { method: 'DELETE', url: `/v1/products/${product.id}/shares/999999`, key: usable.key })).status).toBe(404);
  });

  it("never lets another team list, create or revoke a team's shares", async () => {
    const product = await gp.published(editor, {});
    const created = await share(product.id, usable);
    expect((await send(env, { url: `/v1/products/${product.id}/shares`, key: stranger.key })).status).toBe(404);
    expect((await share(product.id, stranger)).status).toBe(404);
    const revoke = await send(env, { method: 'DELETE', url: `/v1/products/${product.id}/shares/${created.body.data.id}`, key: stranger.key });
    expect(revoke.status).toBe(404);
    expect((await page(pathOf(created.body.data.url))).statusCode).toBe(200);
    expect((await shareRows(stranger.teamId)).length).toBe(0);
  });
});

describe('the share page /s/{token}', () => {
  it("shows the product's name, description, template values and previews whose links expire with the share at the latest", async () => {
    const image = await gp.image(team, 'side view.png');
    const manual = await gp.textFile(team, 'manual.txt');
    const template = await givenTemplates(env).template(manager, {
      groups: [
        {
          name: 'Specs',
          fields: [
            { key: 'material', name: 'Material', type: 'text' },
            { key: 'weight', name: 'Weight (g)', type: 'number' },
            { key: 'sheet', name: 'Sheet', type: 'file' },
          ],
        },
      ],
    });
    const ids = fieldIds(template);
    const product = await gp.published(editor, {
      name: 'Oak chair',
      description: 'Solid oak.\nMade to last.',
      imageAssetIds: [image],
      relatedAssetIds: [manual],
      templateId: template.id,
      templateFields: { [ids.material!]: 'European oak', [ids.weight!]: 5400 },
    });
    const expiresAt = new Date(Date.now() + 600_000);
    const created = await share(product.id, usable, { expiresAt: expiresAt.toISOString() });
    const res = await page(pathOf(created.body.data.url));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).toContain('<h1>Oak chair</h1>');
    expect(res.body).toContain('Solid oak.\nMade to last.');
    // the page writes numbers for people (grouped); the API keeps the stored 5400
    expect(res.body).toContain('<dt>Material</dt><dd>European oak</dd><dt>Weight (g)</dt><dd><data value="5400">5,400</data></dd>');
    // a file field without a value is left out
    expect(res.body).not.toContain('<dt>Sheet</dt>');
    expect(res.body).toContain('manual.txt');
    expect(res.body).toMatch(/Download all \(2 files, /);
    const previews = [...res.body.matchAll(/<img src="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
    expect(previews).toHaveLength(1);
    const exp = Number(new URL(previews[0]!).searchParams.get('exp'));
    expect(exp).toBeLessThanOrEqual(Math.floor(expiresAt.getTime() / 1000));
    const preview = await env.app.inject({ url: previews[0]!.replace('http://127.0.0.1:8080', '') });
    expect(preview.statusCode).toBe(200);
    expect(preview.headers['content-type']).toBe('image/webp');
  });

  it('escapes user content: a product name with markup is shown as text', async () => {
    const product = await gp.published(editor, { name: '<script>alert(1)</script> & "friends"' });
    const res = await page(pathOf((await share(product.id, usable)).body.data.url));
    expect(res.body).not.toContain('<script>');
    expect(res.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;friends&quot;');
  });

  it('shows only the media the share names', async () => {
    const [a, b] = await gp.textFiles(team, 2, 'subset');
    const product = await gp.published(editor, { relatedAssetIds: [a!, b!] });
    const res = await page(pathOf((await share(product.id, usable, { assetIds: [b] })).body.data.url));
    expect(res.body).toContain('subset-1.txt');
    expect(res.body).not.toContain('subset-0.txt');
    expect(res.body).toMatch(/Download all \(1 file, /);
  });

  it('answers an unknown link 404, an expired share 410 and a product no longer published 410, each with a page that says so', async () => {
    const unknown = await page(`/s/${'x'.repeat(43)}`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('Link not found');
    expect((await page('/s/short')).statusCode).toBe(404);
    const product = await gp.published(editor, {});
    const expired = await share(product.id, usable);
    await env.orm.em.fork().execute(`update product_shares set expires_at = now() - interval '1 second' where id = ?`, [expired.body.data.id]);
    const late = await page(pathOf(expired.body.data.url));
    expect(late.statusCode).toBe(410);
    expect(late.body).toContain('This link has expired');
    const live = await share(product.id, usable);
    await env.orm.em.fork().execute(`update products set status = 'draft' where id = ?`, [product.id]);
    const unpublished = await page(pathOf(live.body.data.url));
    expect(unpublished.statusCode).toBe(410);
    expect(unpublished.body).toContain('The shared product is no longer available.');
  });

  it('asks for the password of a protected share: wrong is 403 with the prompt again, right sets a cookie for this share only', async () => {
    const product = await gp.published(editor, { name: 'Hidden lamp' });
    const path = pathOf((await share(product.id, usable, { password: 'correct horse' })).body.data.url);
    const prompt = await page(path);
    expect(prompt.statusCode).toBe(200);
    expect(prompt.body).toContain('Password required');
    expect(prompt.body).not.toContain('Hidden lamp');
    const wrong = await page(path, { method: 'POST', password: 'wrong horse' });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.body).toContain('That password is not right');
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const right = await page(path, { method: 'POST', password: 'correct horse' });
    expect(right.statusCode).toBe(303);
    expect(right.headers.location).toBe(path);
    const setCookie = String(right.headers['set-cookie']);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).toContain(`Path=${path}`);
    const cookie = setCookie.split(';')[0]!;
    const opened = await page(path, { cookie });
    expect(opened.statusCode).toBe(200);
    expect(opened.body).toContain('Hidden lamp');
    const otherPath = pathOf((await share(product.id, usable, { password: 'correct horse' })).body.data.url);
    expect((await page(otherPath, { cookie })).body).toContain('Password required');
    expect((await page(`${path}/download`)).statusCode).toBe(403);
  });

  it('throttles wrong passwords per share and client: 429 with Retry-After, even for the right password', async () => {
    const product = await gp.published(editor, {});
    const path = pathOf((await share(product.id, usable, { password: 'the-real-one' })).body.data.url);
    for (let i = 0; i < env.core.platform.attemptLimiter.limit; i++)
      expect((await page(path, { method: 'POST', password: `guess-${i}` })).statusCode).toBe(403);
    const blocked = await page(path, { method: 'POST', password: 'the-real-one' });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.body).toContain('Too many attempts');
  });

  it('downloads the shared files as one ZIP, recorded as a download through the share; a share without download offers none', async () => {
    const [a, b] = await gp.textFiles(team, 2, 'zip');
    const product = await gp.published(editor, { relatedAssetIds: [a!, b!] });
    const created = await share(product.id, usable);
    const res = await page(`${pathOf(created.body.data.url)}/download`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    const records = await send(env, { url: `/v1/products/${product.id}/download-records`, key: usable.key });
    expect(records.body.data[0]).toMatchObject({
      id: Number(res.headers['download-record-id']),
      shareId: created.body.data.id,
      actor: 'system:product-share',
      keyId: null,
      fileIds: [a, b],
    });
    const closed = await share(product.id, usable, { allowDownload: false });
    const shown = await page(pathOf(closed.body.data.url));
    expect(shown.body).not.toContain('Download all');
    const refused = await page(`${pathOf(closed.body.data.url)}/download`);
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('Download not offered');
    const after = await send(env, { url: `/v1/products/${product.id}/download-records`, key: usable.key });
    expect(after.body.pagination.totalCount).toBe(records.body.pagination.totalCount);
  });
});

describe('product shares over GraphQL', () => {
  it('creates, lists and revokes a share with the same rules as REST', async () => {
    const product = await gp.published(editor, {});
    const created = await graphql(
      env,
      usable.key,
      'mutation($p: Int!) { createProductShare(productId: $p, input: { password: "let-me-in", allowDownload: false }) { id url status passwordProtected allowDownload assetIds } }',
      { p: product.id },
    );
    expect(created.body.errors).toBeUndefined();
    const share = created.body.data.createProductShare;
    expect(share).toMatchObject({ status: 'ACTIVE', passwordProtected: true, allowDownload: false, assetIds: null });
    expect((await page(pathOf(share.url))).body).toContain('Password required');
    const listed = await graphql(env, usable.key, 'query($p: Int!) { productShares(productId: $p) { items { id } pagination { totalCount } } }', {
      p: product.id,
    });
    expect(listed.body.data.productShares).toEqual({ items: [{ id: share.id }], pagination: { totalCount: 1 } });
    const revoked = await graphql(env, usable.key, 'mutation($p: Int!, $s: Int!) { revokeProductShare(productId: $p, shareId: $s) { status } }', {
      p: product.id,
      s: share.id,
    });
    expect(revoked.body.data.revokeProductShare.status).toBe('REVOKED');
    const bad = await graphql(env, usable.key, 'mutation($p: Int!) { createProductShare(productId: $p, input: { password: "abc" }) { id } }', {
      p: product.id,
    });
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'password' }] });
    const denied = await graphql(env, viewer.key, 'mutation($p: Int!) { createProductShare(productId: $p) { id } }', { p: product.id });
    expect(denied.body.errors[0].extensions.code).toBe('forbidden');
  });
});
