import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import type { Core } from '../../src/core/core.ts';

/**
 * The asset-search benchmark library (bench/search.bench.ts): one team with `files` library files
 * written with set-based SQL (generate_series), plus `realImages` real images imported through the
 * core (probe, palette, storage), plus one 4000x3000 JPEG for the derivative measurements.
 *
 * Shape: 2,220 folders (20 top-level, 10 children each, 10 grandchildren each), 50 members,
 * 500 tags (each file 0-3, skewed), names `<adjective>-<noun>-<n>.<ext>`, 60 % with a description of
 * 6-12 words (skewed vocabulary), 30 % of images with analysis fields, extensions skewed like a
 * marketing library, sizes log-uniform per kind, palettes of 1-4 colours for every image.
 */
export interface SearchSeed {
  teamId: number;
  key: string;
  /** Folder ids by level (1 = top). */
  folders: { level1: number[]; level2: number[]; level3: number[] };
  /** The 4000x3000 JPEG's file-path ID. */
  bigJpegId: number;
  bigJpegPath: string;
  /** Real imported image ids. */
  realImageIds: number[];
  cleanup(): Promise<void>;
}

export const ADJECTIVES = [
  'red',
  'blue',
  'green',
  'summer',
  'winter',
  'autumn',
  'spring',
  'final',
  'draft',
  'product',
  'banner',
  'hero',
  'logo',
  'icon',
  'photo',
  'studio',
  'outdoor',
  'night',
  'bright',
  'dark',
  'vintage',
  'modern',
  'classic',
  'urban',
  'nature',
  'ocean',
  'mountain',
  'city',
  'family',
  'sport',
];
export const NOUNS = [
  'shoe',
  'bag',
  'dress',
  'shirt',
  'watch',
  'chair',
  'table',
  'lamp',
  'sofa',
  'bottle',
  'cup',
  'phone',
  'laptop',
  'camera',
  'bike',
  'car',
  'tree',
  'flower',
  'dog',
  'cat',
  'beach',
  'forest',
  'river',
  'bridge',
  'tower',
  'street',
  'market',
  'kitchen',
  'garden',
  'coffee',
  'window',
  'door',
  'mirror',
  'carpet',
  'pillow',
  'basket',
  'candle',
  'clock',
  'guitar',
  'piano',
  'boat',
  'train',
  'plane',
  'horse',
  'bird',
  'fish',
  'apple',
  'orange',
  'lemon',
  'bread',
  'cake',
  'pizza',
  'salad',
  'tea',
  'wine',
  'beer',
  'juice',
  'hat',
  'scarf',
  'glove',
  'jacket',
  'coat',
  'boot',
  'sock',
  'ring',
  'necklace',
  'bracelet',
  'earring',
  'wallet',
  'belt',
  'tie',
  'suit',
  'skirt',
  'jeans',
  'sweater',
  'hoodie',
  'sneaker',
  'sandal',
  'umbrella',
  'tent',
];
export const WORDS = [
  'the',
  'and',
  'with',
  'for',
  'new',
  'collection',
  'season',
  'campaign',
  'shot',
  'model',
  'background',
  'white',
  'black',
  'light',
  'soft',
  'warm',
  'cold',
  'natural',
  'close',
  'detail',
  'view',
  'front',
  'back',
  'side',
  'top',
  'packshot',
  'lifestyle',
  'editorial',
  'social',
  'web',
  'print',
  'poster',
  'flyer',
  'catalog',
  'store',
  'window',
  'display',
  'event',
  'launch',
  'sale',
  'discount',
  'holiday',
  'christmas',
  'easter',
  'valentine',
  'wedding',
  'birthday',
  'party',
  'team',
  'office',
  'portrait',
  'landscape',
  'square',
  'vertical',
  'horizontal',
  'color',
  'mono',
  'retouched',
  'raw',
  'approved',
  'rejected',
  'pending',
  'archive',
  'legacy',
  'master',
  'variant',
  'crop',
  'banner',
  'header',
  'footer',
  'thumbnail',
  'icon',
  'pattern',
  'texture',
  'gradient',
  'sunset',
  'sunrise',
  'morning',
  'evening',
  'rain',
  'snow',
  'sun',
  'cloud',
  'sky',
  'sea',
  'lake',
  'hill',
  'valley',
  'desert',
  'jungle',
  'island',
  'harbor',
  'village',
  'castle',
  'museum',
  'gallery',
  'concert',
  'festival',
  'stadium',
  'runner',
  'cyclist',
  'swimmer',
  'climber',
  'skier',
  'surfer',
  'chef',
  'barista',
  'florist',
  'tailor',
];
export const EXTENSIONS: Array<[string, string, number]> = [
  // extension, MIME type, weight (percent)
  ['jpg', 'image/jpeg', 35],
  ['png', 'image/png', 20],
  ['webp', 'image/webp', 5],
  ['gif', 'image/gif', 3],
  ['svg', 'image/svg+xml', 2],
  ['psd', 'image/vnd.adobe.photoshop', 4],
  ['mp4', 'video/mp4', 10],
  ['mov', 'video/quicktime', 3],
  ['mp3', 'audio/mpeg', 5],
  ['wav', 'audio/wav', 2],
  ['pdf', 'application/pdf', 8],
  ['docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 3],
];
/** Base colours of the synthetic palettes (CIELAB), skewed towards neutrals as real libraries are. */
export const BASE_LAB: Array<[number, number, number]> = [
  [100, 0, 0],
  [0, 0, 0],
  [53, 0, 0],
  [77, 0, 0],
  [30, 0, 0],
  [53.2, 80.1, 67.2],
  [32.3, 79.2, -107.9],
  [87.7, -86.2, 83.2],
  [97.1, -21.6, 94.5],
  [60.3, 98.2, -60.8],
  [91.1, -48.1, -14.1],
  [74.9, 23.9, 78.9],
  [45, 20, 30],
  [70, 15, 20],
  [35, -20, 20],
  [60, -30, -30],
  [25, 10, -40],
  [80, 5, 60],
  [50, 60, 20],
  [65, -10, 50],
];

const esc = (values: string[]) => `array[${values.map((v) => `'${v.replaceAll("'", "''")}'`).join(',')}]`;

/** The SQL that writes the synthetic rows; `$1` team, `$2` files, `$3` first member id, `$4` first tag id. */
function fileSql(): string {
  const extCases = EXTENSIONS.map(([, , weight], i) => [i, EXTENSIONS.slice(0, i + 1).reduce((s, e) => s + e[2], 0), weight] as const);
  const extIndex = `case ${extCases.map(([i, cumulative]) => `when r_ext < ${cumulative / 100} then ${i + 1}`).join(' ')} else 1 end`;
  return `
  with params as (select ${esc(ADJECTIVES)} adj, ${esc(NOUNS)} noun, ${esc(WORDS)} word,
                         ${esc(EXTENSIONS.map((e) => e[0]))} ext, ${esc(EXTENSIONS.map((e) => e[1]))} mime),
  raw as (
    select g, random() r_ext, random() r_size, random() r_dim, random() r_dim2, random() r_desc, random() r_ai, random() r_score,
           random() r_link, random() r_time, random() r_upd, random() r_folder, random() r_user, random() r_dur
      from generate_series(1, $2::int) g),
  shaped as (
    select r.*, ${extIndex} as e from raw r)
  insert into library_files (id, team_id, folder_id, object_id, name, extension, mime_type, byte_size, width, height, duration_ms,
                             description, score, link, source, owner_id, creator_id, create_user_id, update_user_id, created_at, updated_at,
                             ai_tags, ai_title, ai_description, tag_names, tag_ids)
  select s.g, $1, case when s.r_folder < 0.02 then null else (select min(id) from library_folders where team_id = $1) + floor(s.r_folder * 2220)::int end,
         s.g,
         p.adj[1 + floor(30 * power(random(), 2.2))::int] || '-' || p.noun[1 + floor(80 * power(random(), 2.0))::int] || '-' || s.g || '.' || p.ext[s.e],
         p.ext[s.e], p.mime[s.e],
         case when p.mime[s.e] like 'video/%' then floor(exp(ln(1e6) + s.r_size * (ln(5e8) - ln(1e6))))
              when p.mime[s.e] like 'image/%' then floor(exp(ln(2e4) + s.r_size * (ln(5e7) - ln(2e4))))
              else floor(exp(ln(1e4) + s.r_size * (ln(2e7) - ln(1e4)))) end::bigint,
         case when p.mime[s.e] like 'image/%' or p.mime[s.e] like 'video/%' then 64 + floor(s.r_dim * 5936)::int end,
         case when p.mime[s.e] like 'image/%' or p.mime[s.e] like 'video/%' then 64 + floor(s.r_dim2 * 5936)::int end,
         case when p.mime[s.e] like 'video/%' or p.mime[s.e] like 'audio/%' then floor(1000 + s.r_dur * 599000)::bigint end,
         case when s.r_desc < 0.6 then (select string_agg(p.word[1 + floor(${WORDS.length} * power(random(), 2.5))::int + 0 * k], ' ') from generate_series(1, 6 + (s.g % 7)) k) end,
         case when s.r_score < 0.5 then floor(s.r_score * 12)::smallint end,
         case when s.r_link < 0.2 then 'https://shop.example.com/p/' || s.g end,
         2, $3 + floor(s.r_user * 50)::int, $3 + floor(s.r_user * 50)::int, $3 + floor(s.r_user * 50)::int, $3 + floor(s.r_user * 50)::int,
         now() - s.r_time * interval '1000 days', now() - s.r_time * s.r_upd * interval '1000 days',
         case when p.mime[s.e] like 'image/%' and s.r_ai < 0.3 then p.adj[1 + floor(30 * random())::int] || ',' || p.noun[1 + floor(80 * random())::int] end,
         case when p.mime[s.e] like 'image/%' and s.r_ai < 0.3 then initcap(p.adj[1 + floor(30 * random())::int]) || ' ' || p.noun[1 + floor(80 * random())::int] end,
         case when p.mime[s.e] like 'image/%' and s.r_ai < 0.3 then 'A ' || p.word[1 + floor(${WORDS.length} * random())::int] || ' image of a ' || p.noun[1 + floor(80 * random())::int] end,
         coalesce(t.names, ''), coalesce(t.ids, '{}')
    from shaped s cross join params p
    left join gen_tag_names t on t.g = s.g`;
}

async function run(client: pg.Client, label: string, sql: string, params: unknown[] = []): Promise<void> {
  const started = Date.now();
  await client.query(sql, params);
  console.error(`  ${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Writes the synthetic part (folders, members, tags, objects, files, tags of files, palettes) with set-based SQL. */
async function seedRows(client: pg.Client, teamId: number, files: number): Promise<void> {
  await client.query('set session_replication_role = replica'); // bulk load: no per-row triggers; versions, tag_names and tag_ids written here
  await client.query('select setseed(0.4242)');
  await run(client, 'members', `insert into members (team_id, name) select $1, 'Member ' || g from generate_series(1, 50) g`, [teamId]);
  // path_ids are written by separate statements: an UPDATE cannot see rows its own statement's CTE inserted
  await run(
    client,
    'folders',
    `insert into library_folders (team_id, parent_id, name, path, path_ids)
    select $1, null, 'area-' || g, '/area-' || g, '{}' from generate_series(1, 20) g`,
    [teamId],
  );
  await client.query('update library_folders set path_ids = array[id] where team_id = $1 and parent_id is null', [teamId]);
  for (const [level, prefix] of [
    [2, 'group-'],
    [3, 'set-'],
  ] as const) {
    await run(
      client,
      `folders level ${level}`,
      `
      insert into library_folders (team_id, parent_id, name, path, path_ids)
      select $1, p.id, '${prefix}' || g, p.path || '/${prefix}' || g, '{}' from library_folders p, generate_series(1, 10) g
       where p.team_id = $1 and cardinality(p.path_ids) = $2`,
      [teamId, level - 1],
    );
    await client.query(
      `update library_folders c set path_ids = p.path_ids || c.id from library_folders p
      where c.parent_id = p.id and c.team_id = $1 and cardinality(p.path_ids) = $2 and cardinality(c.path_ids) = 0`,
      [teamId, level - 1],
    );
  }
  await run(client, 'tags', `insert into library_tags (team_id, name) select $1, 'tag-' || g from generate_series(1, 500) g`, [teamId]);
  const firstTag = (await client.query('select min(id) as id from library_tags where team_id = $1', [teamId])).rows[0].id as number;
  const firstMember = (await client.query('select min(id) as id from members where team_id = $1', [teamId])).rows[0].id as number;
  // file ids are written explicitly (1..files) so tags and objects can be generated beforehand
  const offset = (await client.query('select coalesce(max(id), 0) as id from library_files')).rows[0].id as number;
  if (offset !== 0) throw new Error('the synthetic rows expect an empty library_files table');
  await run(
    client,
    'tags of files',
    `
    create unlogged table gen_file_tags as
    select distinct g, $2::int - 1 + 1 + floor(500 * power(random(), 3))::int + 0 * k as tag
      from generate_series(1, $1::int) g, generate_series(1, 3) k
     where random() < 0.6`,
    [files, firstTag],
  );
  await run(
    client,
    'tag names',
    `create unlogged table gen_tag_names as
    select ft.g, string_agg(t.name, ' ' order by t.name) as names, array_agg(t.id order by t.id) as ids from gen_file_tags ft join library_tags t on t.id = ft.tag group by ft.g`,
  );
  await client.query('create index on gen_tag_names (g)');
  await run(
    client,
    'stored objects',
    `
    insert into stored_objects (id, team_id, sha256, storage_key, mime_type, byte_size, width, height, duration_ms)
    select g, $1, md5(g::text) || md5((-g)::text), 'objects/' || left(md5(g::text), 2) || '/' || md5(g::text) || md5((-g)::text), 'application/octet-stream', 0, null, null, null
      from generate_series(1, $2::int) g`,
    [teamId, files],
  );
  await run(client, 'library files', fileSql(), [teamId, files, firstMember]);
  await run(
    client,
    'object facts',
    `update stored_objects o set mime_type = f.mime_type, byte_size = f.byte_size, width = f.width, height = f.height, duration_ms = f.duration_ms
    from library_files f where f.object_id = o.id and f.team_id = $1`,
    [teamId],
  );
  await run(client, 'file tags', `insert into library_file_tags (file_id, tag_id, team_id) select g, tag, $1 from gen_file_tags`, [teamId]);
  // the triggers are off for the bulk load, so the DEEP keyword texts are written here, with the
  // expression of library_search_text_sync() (migration Migration20261122165647)
  await run(
    client,
    'search texts',
    `
    insert into library_search_texts (file_id, team_id, created_at, search_text)
    select id, team_id, created_at, lower(name || ' ' || coalesce(description, '') || ' ' || tag_names || ' ' || coalesce(ai_tags, '') || ' ' ||
                              coalesce(ai_title, '') || ' ' || coalesce(ai_description, '') || ' ' || coalesce(ai_detailed_description::text, ''))
      from library_files where team_id = $1 and deleted_at is null`,
    [teamId],
  );
  // and the tag postings, as library_tag_postings_sync() writes them (migration Migration20261122222325)
  await run(
    client,
    'tag postings',
    `
    insert into library_tag_postings (file_id, tag_id, team_id, created_at, tag_ids)
    select f.id, t.id, f.team_id, f.created_at, f.tag_ids from library_files f cross join unnest(f.tag_ids) t(id)
     where f.team_id = $1 and f.deleted_at is null`,
    [teamId],
  );
  // and the narrow name table of asset lookup, as library_file_names_sync() writes it (migration
  // Migration20261126010000); a library without it finds no file by name
  await run(
    client,
    'file names',
    `insert into library_file_names (file_id, team_id, lname)
     select id, team_id, lower(name) from library_files where team_id = $1 and deleted_at is null
     on conflict (file_id) do nothing`,
    [teamId],
  );
  const base = BASE_LAB.map(([l, a, b], i) => `(${i + 1}, ${l}::float8, ${a}::float8, ${b}::float8)`).join(', ');
  await run(
    client,
    'palettes',
    `
    with base(n, l, a, b) as (values ${base}),
    images as (select object_id, random() r1, random() r2 from library_files where team_id = $1 and mime_type like 'image/%'),
    colours as (
      select i.object_id, k - 1 as position, 1 + floor(${BASE_LAB.length} * power(random(), 1.6))::int + 0 * k as n,
             case k when 1 then 40 + i.r1 * 50 else (100 - (40 + i.r1 * 50)) * power(0.6, k - 1) * 0.8 end as share
        from images i, generate_series(1, 4) k
       where k <= 1 + floor(i.r2 * 4))
    insert into stored_object_colours (object_id, position, team_id, l, a, b, rgb, share)
    select c.object_id, c.position, $1, least(100, greatest(0, b.l + (random() - 0.5) * 12)), b.a + (random() - 0.5) * 12, b.b + (random() - 0.5) * 12, '000000', c.share
      from colours c join base b on b.n = c.n`,
    [teamId],
  );
  await client.query(`select setval(pg_get_serial_sequence('library_files', 'id'), (select max(id) from library_files))`);
  await client.query(`select setval(pg_get_serial_sequence('stored_objects', 'id'), (select max(id) from stored_objects))`);
  await client.query(
    'insert into library_versions (team_id, version) values ($1, 1) on conflict (team_id) do update set version = library_versions.version + 1',
    [teamId],
  );
  await client.query('drop table gen_file_tags, gen_tag_names');
  await client.query('set session_replication_role = origin');
}

/** A photo-like 4000x3000 JPEG (gradient plus mild noise), so encoders work as hard as on a real photo. */
async function writeBigJpeg(path: string): Promise<void> {
  const noise = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 24 } } })
    .png()
    .toBuffer();
  const gradient = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="3000"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#e0603a"/><stop offset="1" stop-color="#2a4d8f"/></linearGradient></defs><rect width="4000" height="3000" fill="url(#g)"/><circle cx="2000" cy="1500" r="900" fill="#f2d16b"/></svg>`,
  );
  await sharp(gradient)
    .composite([{ input: noise, blend: 'soft-light' }])
    .jpeg({ quality: 88 })
    .toFile(path);
}

/** Imports real images through the core (probe, palette, storage), into the generated folders. */
async function importRealImages(core: Core, teamId: number, count: number, folderPaths: string[], dir: string): Promise<number[]> {
  const ids: number[] = [];
  const colours = ['#d62828', '#f77f00', '#fcbf49', '#2a9d8f', '#264653', '#e9c46a', '#8ab17d', '#ffffff', '#1d3557', '#a8dadc'];
  for (let i = 0; i < count; i++) {
    const path = join(dir, `real-${i}.png`);
    const main = colours[i % colours.length]!;
    const accent = colours[(i * 7 + 3) % colours.length]!;
    const patch = await sharp({ create: { width: 120, height: 90, channels: 3, background: accent } })
      .png()
      .toBuffer();
    await sharp({ create: { width: 320, height: 240, channels: 3, background: main } })
      .composite([{ input: patch, left: (i * 13) % 200, top: (i * 7) % 150 }])
      .png()
      .toFile(path);
    const made = await core.assets.libraryImport.importFile(core.operatorCtx(), {
      team: teamId,
      file: path,
      folder: folderPaths[i % folderPaths.length],
      name: `real-photo-${i}.png`,
    });
    ids.push(made.id);
    await rm(path);
  }
  return ids;
}

/** Seeds the benchmark library into a freshly migrated database (see SearchSeed). */
export async function seedSearchLibrary(core: Core, databaseUrl: string, options: { files: number; realImages: number }): Promise<SearchSeed> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const dir = await mkdtemp(join(tmpdir(), 'shelf-bench-search-'));
  try {
    const { teamId } = await core.access.createTeam(core.operatorCtx(), { name: 'Bench library' });
    const { key } = await core.access.createKey(core.operatorCtx(), { teamId, role: 'view_only' });
    console.error(`seeding ${options.files} library files for team ${teamId}`);
    await seedRows(client, teamId, options.files);
    const level = async (n: number) =>
      (await client.query('select id, path from library_folders where team_id = $1 and cardinality(path_ids) = $2 order by id', [teamId, n])).rows as Array<{
        id: number;
        path: string;
      }>;
    const [l1, l2, l3] = [await level(1), await level(2), await level(3)];
    let started = Date.now();
    const realImageIds = await importRealImages(
      core,
      teamId,
      options.realImages,
      l3.map((f) => f.path),
      dir,
    );
    console.error(`  ${options.realImages} real images imported: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const bigJpegPath = join(dir, 'big-photo.jpg');
    await writeBigJpeg(bigJpegPath);
    const big = await core.assets.libraryImport.importFile(core.operatorCtx(), { team: teamId, file: bigJpegPath, folder: l3[0]!.path, name: 'big-photo.jpg' });
    started = Date.now();
    await client.query('vacuum analyze');
    console.error(`  vacuum analyze: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return {
      teamId,
      key,
      folders: { level1: l1.map((f) => f.id), level2: l2.map((f) => f.id), level3: l3.map((f) => f.id) },
      bigJpegId: big.id,
      bigJpegPath,
      realImageIds,
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  } finally {
    await client.end();
  }
}
