import { createHash } from 'node:crypto';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import type { EventWorld } from '../support/event-world.ts';
import { type GivenKey, type GivenTeam, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { createLibraryEventWorld, type LibraryEventWorld } from '../support/library-event-world.ts';
import { writeImage } from '../support/media-files.ts';
import { writtenDeliveries } from '../support/outbox.ts';
import type { Received } from '../support/webhook-receiver.ts';

/*
 * pending inbound. `asset import --pending` holds imports (bytes stored, no
 * library file); they are listed, then confirmed (one MATERIAL_INBOUND_COMPLETED with source
 * PENDING_INBOUND_CONFIRM, received by a real HTTP receiver) or discarded, through GraphQL and the
 * operator CLI; bad ids change nothing and write no event; every team sees only its own.
 */

let lib: LibraryEventWorld;
let world: EventWorld;
let files: LibraryEventWorld['files'];
let storage: LibraryEventWorld['storage'];
let viewer: GivenKey;
let other: GivenTeam;
let otherKey: GivenKey;
let ann: number;
let outsider: number;
let inbox: number;
let cliEnv: Record<string, string>;
let blueSha: string;

beforeAll(async () => {
  // the subscribed folder exists before its subscription (an import of red.png creates it)
  lib = await createLibraryEventWorld({
    name: 'pending',
    folder: '/inbox',
    materialEvents: ['MATERIAL_INBOUND_COMPLETED', 'MATERIAL_ADDED_TO_FOLDER'],
    seedFile: async (dir) => {
      await writeImage(join(dir.path, 'red.png'), { width: 40, height: 30, colour: '#ff0000', format: 'png' });
      return join(dir.path, 'red.png');
    },
  });
  ({ world, files, storage, cliEnv, folderId: inbox } = lib);
  viewer = await given(world.env).key(world.team, 'view_only');
  ann = (await given(world.env).member(world.team, 'Ann')).userId;
  other = await given(world.env).team('Elsewhere');
  otherKey = await given(world.env).key(other, 'manage');
  outsider = (await given(world.env).member(other, 'Eve')).userId;
  const blue = await writeImage(join(files.path, 'blue.png'), { width: 20, height: 10, colour: '#0000ff', format: 'png' });
  blueSha = createHash('sha256').update(blue).digest('hex');
  await mkdir(join(files.path, 'tree', 'sub'), { recursive: true });
  await mkdir(join(files.path, 'tree', 'empty'), { recursive: true });
  await writeImage(join(files.path, 'tree', 'top.png'), { width: 12, height: 12, colour: '#00ff00', format: 'png' });
  await writeImage(join(files.path, 'tree', 'sub', 'inner.png'), { width: 14, height: 14, colour: '#ffff00', format: 'png' });
});
afterAll(() => lib.close());

const LIST =
  'query($page: Int, $pageSize: Int) { pendingInbounds(page: $page, pageSize: $pageSize) { items { id folderPath name extension mimeType byteSize width height durationMs tags description score link userId createdAt } pagination { page pageSize totalCount totalPages } } }';
const CONFIRM = 'mutation($ids: [Int!]!) { confirmPendingInbounds(ids: $ids) { confirmed { pendingInboundId materialId folderIds } } }';
const DISCARD = 'mutation($ids: [Int!]!) { discardPendingInbounds(ids: $ids) { discarded } }';

/** A GraphQL request sent with the team's manage key, acting for a member (X-Shelf-Member), as a signed-in frontend does. */
function asAnn(query: string, variables: Record<string, unknown>) {
  return send(world.env, { method: 'POST', url: '/graphql', key: world.key.key, headers: { 'x-shelf-member': String(ann) }, body: { query, variables } });
}

/** Holds one file through the core: the set-up of tests about listing, confirming and discarding (the CLI's own tests use `hold`). */
async function held(file: string, name: string): Promise<number> {
  return (await world.env.core.assets.pendingInbound.holdFile(world.env.core.operatorCtx(), { team: world.team.teamId, file: join(files.path, file), name }))
    .pendingIds[0]!;
}

async function hold(args: string[]): Promise<number[]> {
  const res = await runCli(['asset', 'import', '--team', String(world.team.teamId), '--pending', ...args], cliEnv);
  expect(res.code, res.stdout).toBe(0);
  return res.json.pendingIds;
}

async function db<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  return world.env.orm.em.fork().execute(sql, params) as Promise<T[]>;
}

/** The state bad input must leave untouched: pending rows, library files, folders and outbox events of the team. */
async function snapshot(): Promise<Record<string, number>> {
  const [counts] = await db<Record<string, number>>(
    `select (select count(*)::int from library_pending_inbounds) as pending, (select count(*)::int from library_files) as files,
            (select count(*)::int from library_folders) as folders, (select count(*)::int from outbox_events) as events`,
  );
  return counts!;
}

const on = (path: string, eventType?: string) =>
  world.receiver.received.filter((r) => r.path === path && (eventType === undefined || r.body?.eventType === eventType));

async function waitFor(path: string, eventType: string, match: (r: Received) => boolean, count = 1): Promise<Received[]> {
  const mine = () => on(path, eventType).filter(match);
  await expect.poll(() => mine().length).toBeGreaterThanOrEqual(count);
  return mine();
}

/**
 * Events written for the team's endpoints at or after `since` (epoch ms), delivered or not: all
 * that the calls since then will ever send (support/outbox.ts). Earlier tests' events do not count.
 */
const writtenSince = async (since: number) => (await writtenDeliveries(world.env, world.team.teamId)).filter((d) => Number(d.body.eventTime) >= since);

async function searchNames(key: string, keyword: string): Promise<string[]> {
  const res = await send(world.env, {
    method: 'POST',
    url: '/open/search-assets',
    key,
    body: { endPoint: 100, keywords: [keyword], keywordSearchType: 'DEFAULT' },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.result.assets.map((a: { name: string }) => a.name).sort();
}

describe('holding an import as pending (`asset import --pending`)', () => {
  it('`--file --pending` stores the bytes, creates no library file, and `asset pending list` shows it with what the import was given', async () => {
    const before = await snapshot();
    const [pendingId] = await hold([
      '--file',
      join(files.path, 'blue.png'),
      '--folder',
      '/inbox/held',
      '--name',
      'held-blue.png',
      '--tags',
      'sale, warm,sale',
      '--description',
      'waiting',
      '--score',
      '4',
      '--link',
      'https://example.com/p',
      '--user',
      String(ann),
    ]);
    expect(pendingId).toEqual(expect.any(Number));
    expect(await stat(join(storage.path, 'objects', blueSha.slice(0, 2), blueSha))).toBeTruthy();
    expect(await db('select id from library_files where name = ?', ['held-blue.png'])).toEqual([]);
    expect(await db('select id from library_folders where path = ?', ['/inbox/held'])).toEqual([]);
    expect(await snapshot()).toEqual({ ...before, pending: before.pending! + 1 });
    const listed = await runCli(['asset', 'pending', 'list', '--team', String(world.team.teamId)], cliEnv);
    expect(listed.code).toBe(0);
    expect(listed.json.items[0]).toEqual({
      id: pendingId,
      folderPath: '/inbox/held',
      name: 'held-blue.png',
      extension: 'png',
      mimeType: 'image/png',
      byteSize: (await readFile(join(files.path, 'blue.png'))).length,
      width: 20,
      height: 10,
      durationMs: null,
      tags: ['sale', 'warm'],
      description: 'waiting',
      score: 4,
      link: 'https://example.com/p',
      userId: ann,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
    });
  });

  it('`--dir --pending` holds every regular file and creates no folder before the confirm', async () => {
    const ids = await hold(['--dir', join(files.path, 'tree'), '--folder', '/inbox/batch']);
    expect(ids).toHaveLength(2);
    expect(await db("select id from library_folders where path like '/inbox/batch%'")).toEqual([]);
    const rows = await db<{ name: string; folder_path: string }>(
      'select name, folder_path from library_pending_inbounds where id = any(?::int[]) order by name',
      [`{${ids.join(',')}}`],
    );
    expect(rows).toEqual([
      { name: 'inner.png', folder_path: '/inbox/batch/sub' },
      { name: 'top.png', folder_path: '/inbox/batch' },
    ]);
  });

  it('refuses a pending import whose --user is a member of another team, and holds nothing', async () => {
    const before = await snapshot();
    const res = await runCli(
      ['asset', 'import', '--team', String(world.team.teamId), '--pending', '--file', join(files.path, 'blue.png'), '--user', String(outsider)],
      cliEnv,
    );
    expect(res.code).toBe(1);
    expect(res.json.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'user', message: 'must be a member of the team' }] });
    expect(await snapshot()).toEqual(before);
  });

  it('a pending item is not found by search before it is confirmed', async () => {
    await held('red.png', 'invisible-red.png');
    expect(await searchNames(world.key.key, 'invisible-red')).toEqual([]);
  });
});

describe('listing pending inbounds (GraphQL pendingInbounds)', () => {
  it("lists the team's pending inbounds newest first, with ordinary paging", async () => {
    const res = await graphql(world.env, world.key.key, LIST, { page: 1, pageSize: 2 });
    expect(res.body.errors).toBeUndefined();
    const page = res.body.data.pendingInbounds;
    const [rows] = await db<{ n: number; newest: number[] }>(
      'select count(*)::int as n, (array_agg(id order by id desc))[1:2] as newest from library_pending_inbounds where team_id = ?',
      [world.team.teamId],
    );
    expect(page.pagination).toEqual({ page: 1, pageSize: 2, totalCount: rows!.n, totalPages: Math.ceil(rows!.n / 2) });
    expect(page.items.map((i: { id: number }) => i.id)).toEqual(rows!.newest);
  });

  it('shows another team none of them (cross-team isolation), by GraphQL and by `asset pending list`', async () => {
    const res = await graphql(world.env, otherKey.key, LIST);
    expect(res.body.data.pendingInbounds).toEqual({ items: [], pagination: { page: 1, pageSize: 20, totalCount: 0, totalPages: 0 } });
    const cli = await runCli(['asset', 'pending', 'list', '--team', String(other.teamId)], cliEnv);
    expect(cli.json.items).toEqual([]);
  });

  it('needs editable or higher: a view_only key is forbidden', async () => {
    const res = await graphql(world.env, viewer.key, LIST);
    expect(res.body.errors[0].extensions.code).toBe('forbidden');
  });
});

describe('confirming pending inbounds', () => {
  it('confirmPendingInbounds places the files in one go and sends MATERIAL_INBOUND_COMPLETED with source PENDING_INBOUND_CONFIRM and pendingInboundIdToMaterialId', async () => {
    const [top, inner] = (await db<{ id: number }>("select id from library_pending_inbounds where folder_path like '/inbox/batch%' order by folder_path")).map(
      (r) => r.id,
    ) as [number, number];
    const res = await asAnn(CONFIRM, { ids: [inner, top] });
    expect(res.body.errors).toBeUndefined();
    const confirmed = res.body.data.confirmPendingInbounds.confirmed as Array<{ pendingInboundId: number; materialId: number; folderIds: number[] }>;
    const [first, second] = [...confirmed].sort((a, b) => a.pendingInboundId - b.pendingInboundId) as [(typeof confirmed)[0], (typeof confirmed)[0]];
    expect(confirmed.map((c) => c.pendingInboundId)).toEqual([Math.min(top, inner), Math.max(top, inner)]);
    const topFile = confirmed.find((c) => c.pendingInboundId === top)!;
    const innerFile = confirmed.find((c) => c.pendingInboundId === inner)!;
    const [batch] = await db<{ id: number }>("select id from library_folders where path = '/inbox/batch' and deleted_at is null");
    const [sub] = await db<{ id: number }>("select id from library_folders where path = '/inbox/batch/sub' and deleted_at is null");
    expect(topFile.folderIds).toEqual([inbox, batch!.id]);
    expect(innerFile.folderIds).toEqual([inbox, batch!.id, sub!.id]);
    expect(await db('select id from library_pending_inbounds where id = any(?::int[])', [`{${top},${inner}}`])).toEqual([]);

    const [inbound] = await waitFor(
      '/m',
      'MATERIAL_INBOUND_COMPLETED',
      (r) => r.body.payload.source === 'PENDING_INBOUND_CONFIRM' && r.body.payload.materialIds.includes(topFile.materialId),
    );
    expect(inbound!.body).toEqual({
      eventId: expect.any(String),
      eventType: 'MATERIAL_INBOUND_COMPLETED',
      eventTime: expect.stringMatching(/^\d{13}$/),
      actor: { kind: 'member', id: ann },
      payload: {
        source: 'PENDING_INBOUND_CONFIRM',
        initiatorUserId: String(ann),
        pendingInboundIdToMaterialId: { [String(first.pendingInboundId)]: first.materialId, [String(second.pendingInboundId)]: second.materialId },
        materialIds: [first.materialId, second.materialId],
      },
      sequence: 1,
    });
    const added = await waitFor(
      '/m',
      'MATERIAL_ADDED_TO_FOLDER',
      (r) => r.body.payload.materialIds.some((id: number) => id === topFile.materialId || id === innerFile.materialId),
      2,
    );
    expect(added.map((r) => r.body.payload).sort((a, b) => a.folderIds[0] - b.folderIds[0])).toEqual([
      { materialIds: [topFile.materialId], folderIds: [batch!.id] },
      { materialIds: [innerFile.materialId], folderIds: [sub!.id] },
    ]);
  });

  it('the subscribed ancestor folder gets one FOLDER_CONTENT_UPDATE ADD with both confirmed files (6.1)', async () => {
    const [update] = await waitFor('/f', 'FOLDER_CONTENT_UPDATE', (r) => r.body.assets.some((a: { name: string }) => a.name === 'top.png'));
    const files = await db<{ id: number; name: string }>("select id, name from library_files where name in ('top.png', 'inner.png') order by id");
    expect(update!.body).toMatchObject({
      eventType: 'FOLDER_CONTENT_UPDATE',
      folderId: inbox,
      type: 'ADD',
      orgId: world.team.teamId,
      actor: { kind: 'member', id: ann },
    });
    expect(
      update!.body.assets.map((a: { id: number; name: string; source: number; userId: string; size: number }) => [a.id, a.name, a.source, a.userId]),
    ).toEqual(files.map((f) => [f.id, f.name, 2, String(ann)]));
  });

  it('confirmed files are found by search, with what the import was given', async () => {
    const [held] = await db<{ id: number }>("select id from library_pending_inbounds where name = 'held-blue.png'");
    const res = await runCli(['asset', 'pending', 'confirm', '--team', String(world.team.teamId), '--ids', String(held!.id), '--user', String(ann)], cliEnv);
    expect(res.code, res.stdout).toBe(0);
    const [{ materialId }] = res.json.confirmed;
    expect(res.json).toEqual({ confirmed: [{ pendingInboundId: held!.id, materialId, folderIds: expect.any(Array) }] });
    expect(await searchNames(world.key.key, 'held-blue')).toEqual(['held-blue.png']);
    const [file] = await db('select name, description, score, link, owner_id, creator_id, source, tag_names from library_files where id = ?', [materialId]);
    expect(file).toEqual({
      name: 'held-blue.png',
      description: 'waiting',
      score: 4,
      link: 'https://example.com/p',
      owner_id: ann,
      creator_id: ann,
      source: 2,
      tag_names: expect.stringMatching(/sale.*warm|warm.*sale/),
    });
    const [inbound] = await waitFor('/m', 'MATERIAL_INBOUND_COMPLETED', (r) => r.body.payload.materialIds?.[0] === materialId);
    expect(inbound!.body).toMatchObject({
      actor: { kind: 'member', id: ann },
      payload: {
        source: 'PENDING_INBOUND_CONFIRM',
        initiatorUserId: String(ann),
        pendingInboundIdToMaterialId: { [String(held!.id)]: materialId },
        materialIds: [materialId],
      },
    });
  });
});

describe('discarding pending inbounds', () => {
  it('discardPendingInbounds removes them without placing anything and sends no event', async () => {
    const pendingId = await held('blue.png', 'discard-me.png');
    const since = Date.now();
    const res = await asAnn(DISCARD, { ids: [pendingId] });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.discardPendingInbounds).toEqual({ discarded: [pendingId] });
    expect(await db('select id from library_pending_inbounds where id = ?', [pendingId])).toEqual([]);
    expect(await db("select id from library_files where name = 'discard-me.png'")).toEqual([]);
    expect(await writtenSince(since)).toEqual([]);
  });

  it('`asset pending discard` removes them from the CLI', async () => {
    const pendingId = await held('blue.png', 'cli-discard.png');
    const res = await runCli(['asset', 'pending', 'discard', '--team', String(world.team.teamId), '--ids', String(pendingId)], cliEnv);
    expect(res.code, res.stdout).toBe(0);
    expect(res.json).toEqual({ discarded: [pendingId] });
    expect(await db('select id from library_pending_inbounds where id = ?', [pendingId])).toEqual([]);
  });
});

describe('bad input: a clear error, nothing changed, no event', () => {
  let mine: number;
  let theirs: number;

  beforeAll(async () => {
    mine = await held('blue.png', 'kept.png');
    theirs = (
      await world.env.core.assets.pendingInbound.holdFile(world.env.core.operatorCtx(), {
        team: other.teamId,
        file: join(files.path, 'red.png'),
        name: 'theirs.png',
      })
    ).pendingIds[0]!;
  });

  async function refused(
    run: () => Promise<{ code: string; message?: string; details?: unknown }>,
    code: string,
  ): Promise<{ code: string; message?: string; details?: unknown }> {
    const before = await snapshot();
    const since = Date.now();
    const error = await run();
    expect(error.code).toBe(code);
    expect(await snapshot()).toEqual(before);
    expect(await writtenSince(since)).toEqual([]);
    return error;
  }
  const gqlError =
    (query: string, ids: unknown, key = world.key.key) =>
    async () => {
      const [error] = (await graphql(world.env, key, query, { ids })).body.errors;
      return { ...error.extensions, message: error.message };
    };

  it('unknown ids: not_found naming them, for confirm and discard', async () => {
    const error = await refused(gqlError(CONFIRM, [999_999, mine, 999_998]), 'not_found');
    expect(error.message).toBe('Pending inbound not found: 999998, 999999');
    await refused(gqlError(DISCARD, [999_999]), 'not_found');
  });

  it("another team's ids are not found (cross-team isolation), for confirm and discard", async () => {
    await refused(gqlError(CONFIRM, [theirs]), 'not_found');
    await refused(gqlError(DISCARD, [theirs]), 'not_found');
    // and the other team cannot reach ours
    await refused(gqlError(CONFIRM, [mine], otherKey.key), 'not_found');
    await refused(gqlError(DISCARD, [mine], otherKey.key), 'not_found');
  });

  it('valid and invalid ids mixed: all or nothing, the valid one stays pending', async () => {
    await refused(gqlError(CONFIRM, [mine, theirs]), 'not_found');
    await refused(gqlError(DISCARD, [mine, 999_999]), 'not_found');
    expect(await db('select id from library_pending_inbounds where id = ?', [mine])).toEqual([{ id: mine }]);
  });

  it('an id already confirmed is not found a second time', async () => {
    const confirmedOnce = await held('blue.png', 'once.png');
    const done = await graphql(world.env, world.key.key, CONFIRM, { ids: [confirmedOnce] });
    expect(done.body.errors).toBeUndefined();
    const materialId = done.body.data.confirmPendingInbounds.confirmed[0].materialId;
    // its own event arrives first, so that the check below sees only what the refusal would send
    expect(await waitFor('/m', 'MATERIAL_INBOUND_COMPLETED', (r) => r.body.payload.materialIds[0] === materialId)).toHaveLength(1);
    await refused(gqlError(CONFIRM, [confirmedOnce]), 'not_found');
    expect(await db("select id from library_files where name = 'once.png'")).toHaveLength(1);
  });

  it('no ids, or a non-positive id: validation_failed', async () => {
    await refused(gqlError(CONFIRM, []), 'validation_failed');
    await refused(gqlError(DISCARD, [0]), 'validation_failed');
  });

  it('a view_only key may neither confirm nor discard', async () => {
    await refused(gqlError(CONFIRM, [mine], viewer.key), 'forbidden');
    await refused(gqlError(DISCARD, [mine], viewer.key), 'forbidden');
  });

  it("CLI: a --user of another team, an unknown team and another team's id are refused", async () => {
    const cli = (args: string[]) => async () => (await runCli(['asset', 'pending', ...args], cliEnv)).json.error;
    const team = String(world.team.teamId);
    const foreignUser = await refused(cli(['confirm', '--team', team, '--ids', String(mine), '--user', String(outsider)]), 'validation_failed');
    expect(foreignUser.details).toEqual([{ field: 'user', message: 'must be a member of the team' }]);
    await refused(cli(['confirm', '--team', '999999', '--ids', String(mine)]), 'not_found');
    await refused(cli(['discard', '--team', team, '--ids', `${mine},${theirs}`]), 'not_found');
    await refused(cli(['confirm', '--team', team, '--ids', 'abc']), 'validation_failed');
  });
});
