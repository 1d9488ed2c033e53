import { join } from 'node:path';
import { QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisConnection } from '../../src/queues.ts';
import { runCli } from '../support/cli.ts';
import { createEventWorld, type EventWorld } from '../support/event-world.ts';
import { type GivenKey, given } from '../support/given.ts';
import { graphql, send } from '../support/http.ts';
import { tempDir, writeImage } from '../support/media-files.ts';
import { type WrittenDelivery, writtenDeliveries } from '../support/outbox.ts';
import type { Received } from '../support/webhook-receiver.ts';

/*
 * validity periods (with the daily check) and ownership transfer, through
 * GraphQL, the CLI and the maintenance worker, each with its spec 6.2 event received by a real
 * HTTP receiver through a material subscription.
 */

let world: EventWorld;
let files: Awaited<ReturnType<typeof tempDir>>;
let storage: Awaited<ReturnType<typeof tempDir>>;
let viewer: GivenKey;
let ann: number;
let bob: number;
let outsider: number;
let cliEnv: Record<string, string>;

beforeAll(async () => {
  files = await tempDir('validity-files');
  storage = await tempDir('validity-storage');
  world = await createEventWorld({ STORAGE_DIR: storage.path });
  await world.startWorkers();
  viewer = await given(world.env).key(world.team, 'view_only');
  ann = (await given(world.env).member(world.team, 'Ann')).userId;
  bob = (await given(world.env).member(world.team, 'Bob')).userId;
  outsider = (await given(world.env).member(await given(world.env).team('Elsewhere'), 'Eve')).userId;
  await writeImage(join(files.path, 'blue.png'), { width: 20, height: 10, colour: '#0000ff', format: 'png' });
  const subscribed = await send(world.env, {
    method: 'POST',
    url: '/open/material-automation-subscribe',
    key: world.key.key,
    body: { callbackUrl: `${world.receiver.url}/m`, eventTypes: ['MATERIAL_METADATA_UPDATED'] },
  });
  expect(subscribed.body.code).toBe('0');
  cliEnv = {
    DATABASE_URL: world.env.config.databaseUrl,
    STORAGE_DIR: storage.path,
    REDIS_URL: world.env.config.redisUrl,
    QUEUE_PREFIX: world.env.config.queuePrefix,
  };
});
afterAll(async () => {
  await world.close();
  await files.remove();
  await storage.remove();
});

async function newFile(name: string, owner?: number): Promise<number> {
  return (await given(world.env).libraryFile(world.team, { file: join(files.path, 'blue.png'), folder: '/v', name, ...(owner ? { user: owner } : {}) })).id;
}

const isEventOf = (fileId: number) => (path: string, body: any) =>
  path === '/m' && (body as { payload: { materialIds: number[] } }).payload.materialIds[0] === fileId;

/** The MATERIAL_METADATA_UPDATED events received for a file, once at least `count` have arrived. */
async function eventsFor(fileId: number, count: number): Promise<Received[]> {
  const about = isEventOf(fileId);
  const mine = () => world.receiver.received.filter((r) => about(r.path, r.body));
  await expect.poll(() => mine().length).toBeGreaterThanOrEqual(count);
  return mine();
}

/** The MATERIAL_METADATA_UPDATED events written for a file so far: all it will ever be sent, known without waiting (support/outbox.ts). */
async function eventsWrittenFor(fileId: number): Promise<WrittenDelivery[]> {
  const about = isEventOf(fileId);
  return (await writtenDeliveries(world.env, world.team.teamId)).filter((d) => about(d.path, d.body));
}

async function fileRow(fileId: number): Promise<Record<string, unknown>> {
  const [row] = await world.env.orm.em
    .fork()
    .execute('select owner_id, validity_start, validity_end, validity_status, updated_at from library_files where id = ?', [fileId]);
  return row!;
}

const SET_VALIDITY =
  'mutation($id: Int!, $input: FileValidityInput!) { setLibraryFileValidity(id: $id, input: $input) { materialId validityStatus validityStatusName daysToExpire startTime endTime isPermanent } }';
const TRANSFER = 'mutation($id: Int!, $owner: Int!) { transferLibraryFile(id: $id, ownerUserId: $owner) { id userId } }';
const READ = 'query($id: Int!) { libraryFile(id: $id) { id validity { validityStatusName daysToExpire isPermanent } } }';

describe('file validity', () => {
  it('sets a period through GraphQL and sends MATERIAL_METADATA_UPDATED changeType VALIDITY with the 6.2 fields', async () => {
    const fileId = await newFile('valid.png');
    const end = new Date(Date.now() + 10 * 86_400_000 - 3_600_000);
    const res = await graphql(world.env, world.key.key, SET_VALIDITY, { id: fileId, input: { startTime: '2026-01-01T00:00:00Z', endTime: end.toISOString() } });
    expect(res.body.errors).toBeUndefined();
    const validity = res.body.data.setLibraryFileValidity;
    expect(validity).toEqual({
      materialId: fileId,
      validityStatus: 0,
      validityStatusName: 'VALID',
      daysToExpire: 10,
      startTime: '2026-01-01T00:00:00.000000Z',
      endTime: `${end.toISOString().slice(0, 23)}000Z`,
      isPermanent: false,
    });
    const [event] = await eventsFor(fileId, 1);
    expect(event!.body).toMatchObject({
      eventType: 'MATERIAL_METADATA_UPDATED',
      payload: { changeType: 'VALIDITY', materialIds: [fileId], materials: [validity] },
    });
    const read = await graphql(world.env, viewer.key, READ, { id: fileId });
    expect(read.body.data.libraryFile.validity).toEqual({ validityStatusName: 'VALID', daysToExpire: 10, isPermanent: false });
  });

  it('a file never given a period is valid and permanent', async () => {
    const fileId = await newFile('plain.png');
    const read = await graphql(world.env, viewer.key, READ, { id: fileId });
    expect(read.body.data.libraryFile.validity).toEqual({ validityStatusName: 'VALID', daysToExpire: null, isPermanent: true });
  });

  it('refuses an end not after the start, a malformed time, a foreign file and a view_only caller: a clear error, nothing changed, no event', async () => {
    const fileId = await newFile('refused.png');
    const before = await fileRow(fileId);
    const backwards = await graphql(world.env, world.key.key, SET_VALIDITY, {
      id: fileId,
      input: { startTime: '2026-12-01T00:00:00Z', endTime: '2026-11-01T00:00:00Z' },
    });
    expect(backwards.body.errors[0].extensions).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'endTime', message: 'must be after startTime' }],
    });
    const malformed = await graphql(world.env, world.key.key, SET_VALIDITY, { id: fileId, input: { endTime: 'next week' } });
    expect(malformed.body.errors[0].extensions.code).toBe('validation_failed');
    const forbidden = await graphql(world.env, viewer.key, SET_VALIDITY, { id: fileId, input: { endTime: '2030-01-01T00:00:00Z' } });
    expect(forbidden.body.errors[0].extensions.code).toBe('forbidden');
    const stranger = await given(world.env).key(await given(world.env).team('Stranger'), 'manage');
    const foreign = await graphql(world.env, stranger.key, SET_VALIDITY, { id: fileId, input: { endTime: '2030-01-01T00:00:00Z' } });
    expect(foreign.body.errors[0].extensions.code).toBe('not_found');
    expect(await fileRow(fileId)).toEqual(before);
    expect(await eventsWrittenFor(fileId)).toEqual([]);
  });

  it('the daily check moves files whose period started or ended and sends their VALIDITY events, once', async () => {
    const ending = await newFile('ending.png');
    const starting = await newFile('starting.png');
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const set = async (id: number, input: object) => expect((await graphql(world.env, world.key.key, SET_VALIDITY, { id, input })).body.errors).toBeUndefined();
    await set(ending, { endTime: later });
    await set(starting, { startTime: later });
    expect(await eventsFor(ending, 1)).toHaveLength(1);
    expect((await eventsFor(starting, 1))[0]!.body).toMatchObject({ payload: { materials: [{ validityStatusName: 'NOT_STARTED' }] } });
    // the hour passes: the bounds move into the past, as the clock would move past them
    await world.env.orm.em.fork().execute(`update library_files set validity_end = now() - interval '1 second' where id = ?`, [ending]);
    await world.env.orm.em.fork().execute(`update library_files set validity_start = now() - interval '1 second' where id = ?`, [starting]);
    const queueEvents = new QueueEvents('maintenance', { connection: redisConnection(world.env.config), prefix: world.env.config.queuePrefix });
    await queueEvents.waitUntilReady();
    try {
      const job = await world.env.queues.get('maintenance').add('validity-check', {});
      expect(await job.waitUntilFinished(queueEvents, 20_000)).toEqual({ changed: 2 });
      const again = await world.env.queues.get('maintenance').add('validity-check', {});
      expect(await again.waitUntilFinished(queueEvents, 20_000)).toEqual({ changed: 0 });
    } finally {
      await queueEvents.close();
    }
    const [, expired] = await eventsFor(ending, 2);
    expect(expired!.body).toMatchObject({
      actor: { kind: 'system', job: 'validity-check' },
      payload: {
        changeType: 'VALIDITY',
        materials: [{ materialId: ending, validityStatus: 2, validityStatusName: 'EXPIRED', daysToExpire: 0, isPermanent: false }],
      },
    });
    const [, started] = await eventsFor(starting, 2);
    expect(started!.body).toMatchObject({
      payload: { materials: [{ materialId: starting, validityStatus: 0, validityStatusName: 'VALID', isPermanent: true, daysToExpire: null }] },
    });
    expect(await eventsWrittenFor(ending)).toHaveLength(2);
  });

  it('`asset validity` sets a period as a member from the CLI, and `none` clears a bound', async () => {
    const fileId = await newFile('cli.png');
    const set = await runCli(['asset', 'validity', '--user', String(ann), '--file', String(fileId), '--end', '2031-05-01T00:00:00Z'], cliEnv);
    expect(set.code).toBe(0);
    expect(set.json).toMatchObject({ materialId: fileId, endTime: '2031-05-01T00:00:00.000000Z', isPermanent: false });
    const cleared = await runCli(['asset', 'validity', '--user', String(ann), '--file', String(fileId), '--end', 'none'], cliEnv);
    expect(cleared.json).toMatchObject({ endTime: null, isPermanent: true });
    const bad = await runCli(['asset', 'validity', '--user', String(ann), '--file', String(fileId), '--start', 'soon'], cliEnv);
    expect(bad.code).toBe(1);
    expect(bad.json.error.code).toBe('validation_failed');
    const foreign = await runCli(['asset', 'validity', '--user', String(outsider), '--file', String(fileId), '--end', '2031-05-01T00:00:00Z'], cliEnv);
    expect(foreign.json.error.code).toBe('not_found');
  }, 90_000);
});

describe('ownership transfer', () => {
  it('transfers a file to another member through GraphQL: the same file-path ID, and changeType OWNER with the new owner', async () => {
    const fileId = await newFile('owned.png', ann);
    const res = await graphql(world.env, world.key.key, TRANSFER, { id: fileId, owner: bob });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.transferLibraryFile).toEqual({ id: fileId, userId: String(bob) });
    const [event] = await eventsFor(fileId, 1);
    expect(event!.body).toMatchObject({
      eventType: 'MATERIAL_METADATA_UPDATED',
      payload: { changeType: 'OWNER', materialIds: [fileId], materials: [{ materialId: fileId, ownerUserId: String(bob) }] },
    });
  });

  it('refuses a member of another team, an unknown file and a view_only caller; a transfer to the current owner changes nothing; no event', async () => {
    const fileId = await newFile('kept.png', ann);
    const before = await fileRow(fileId);
    const foreignMember = await graphql(world.env, world.key.key, TRANSFER, { id: fileId, owner: outsider });
    expect(foreignMember.body.errors[0].extensions).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'ownerUserId', message: 'must be a member of the team' }],
    });
    expect((await graphql(world.env, world.key.key, TRANSFER, { id: 999_999, owner: bob })).body.errors[0].extensions.code).toBe('not_found');
    expect((await graphql(world.env, viewer.key, TRANSFER, { id: fileId, owner: bob })).body.errors[0].extensions.code).toBe('forbidden');
    const same = await graphql(world.env, world.key.key, TRANSFER, { id: fileId, owner: ann });
    expect(same.body.data.transferLibraryFile.userId).toBe(String(ann));
    expect(await fileRow(fileId)).toEqual(before);
    expect(await eventsWrittenFor(fileId)).toEqual([]);
  });

  it('`asset transfer` transfers as a member from the CLI', async () => {
    const fileId = await newFile('cli-owned.png', ann);
    const res = await runCli(['asset', 'transfer', '--user', String(ann), '--file', String(fileId), '--owner', String(bob)], cliEnv);
    expect(res.code).toBe(0);
    expect(res.json).toEqual({ id: fileId });
    expect((await fileRow(fileId)).owner_id).toBe(bob);
    const [event] = await eventsFor(fileId, 1);
    expect(event!.body).toMatchObject({ actor: { kind: 'member', id: ann }, payload: { changeType: 'OWNER', materials: [{ ownerUserId: String(bob) }] } });
  }, 60_000);
});
