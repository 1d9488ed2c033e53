import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll } from 'vitest';
import { createTestEnv, type TestEnv } from './env.ts';
import { type GivenKey, type GivenTeam, given } from './given.ts';
import { tempDir, writeImage, writeWav } from './media-files.ts';

/** An image with two colour areas: the left `leftPercent` of the width in `left`, the rest in `right`. */
export async function writeTwoColourImage(
  path: string,
  o: { width: number; height: number; left: string; right: string; leftPercent: number; format: 'png' | 'jpeg' },
): Promise<void> {
  const leftWidth = Math.round((o.width * o.leftPercent) / 100);
  const leftPart = await sharp({ create: { width: leftWidth, height: o.height, channels: 3, background: o.left } })
    .png()
    .toBuffer();
  const bytes = await sharp({ create: { width: o.width, height: o.height, channels: 3, background: o.right } })
    .composite([{ input: leftPart, left: 0, top: 0 }])
    .toFormat(o.format)
    .toBuffer();
  await writeFile(path, bytes);
}

export interface SearchLibrary {
  teamA: GivenTeam;
  teamB: GivenTeam;
  keyA: GivenKey;
  keyB: GivenKey;
  ann: number;
  bob: number;
  /** File ids by fixture name. */
  files: Record<string, number>;
  /** Folder ids by path. */
  folders: Record<string, number>;
  /** Tag ids by name (team A). */
  tags: Record<string, number>;
  fileOfB: number;
  folderOfB: number;
  remove(): Promise<void>;
}

/**
 * A fixture library of real files of known sizes, colours, extensions and durations (team A), and
 * one look-alike file in team B for isolation checks. Imported through the core, as `asset import` does.
 *
 * | name           | folder         | what                                  | tags        | score | user |
 * |----------------|----------------|---------------------------------------|-------------|-------|------|
 * | red.png        | /photos/summer | 400x300 #ff0000 PNG                   | sale, warm  | 5     | ann  |
 * | blue.jpg       | /photos/winter | 1200x800 #0000ff JPEG                 | cold        | 3     | bob  |
 * | half-green.png | /photos        | 200x100: 70 % #00c000, 30 % white     | warm        | -     | ann  |
 * | logo.webp      | /photos        | 64x64 #336699 WebP, analysis fields   | -           | 4     | -    |
 * | notes.txt      | /docs          | text                                  | -           | 0     | bob  |
 * | clip.wav       | /media         | 1500 ms                               | -           | 1     | ann  |
 * | long.wav       | /media         | 4000 ms                               | sale        | 2     | -    |
 * | root.png       | (root)         | 10x10 #ffff00 PNG                     | -           | -     | -    |
 */
export async function buildSearchLibrary(env: TestEnv): Promise<SearchLibrary> {
  const g = given(env);
  const inputs = await tempDir('search-inputs');
  const teamA = await g.team('Search A');
  const teamB = await g.team('Search B');
  const keyA = await g.key(teamA, 'view_only');
  const keyB = await g.key(teamB, 'view_only');
  const ann = (await g.member(teamA, 'Ann')).userId;
  const bob = (await g.member(teamA, 'Bob')).userId;
  const path = (name: string) => join(inputs.path, name);
  await writeImage(path('red.png'), { width: 400, height: 300, colour: '#ff0000', format: 'png' });
  await writeImage(path('blue.jpg'), { width: 1200, height: 800, colour: '#0000ff', format: 'jpeg' });
  await writeTwoColourImage(path('half-green.png'), { width: 200, height: 100, left: '#00c000', right: '#ffffff', leftPercent: 70, format: 'png' });
  await writeImage(path('logo.webp'), { width: 64, height: 64, colour: '#336699', format: 'webp' });
  await writeFile(path('notes.txt'), 'meeting notes\n');
  await writeWav(path('clip.wav'), 1500);
  await writeWav(path('long.wav'), 4000);
  await writeImage(path('root.png'), { width: 10, height: 10, colour: '#ffff00', format: 'png' });

  const files: Record<string, number> = {};
  const folders: Record<string, number> = {};
  const imp = async (name: string, input: Record<string, unknown>) => {
    const made = await g.libraryFile(teamA, { file: path(name), ...input });
    files[name] = made.id;
    if (typeof input.folder === 'string') folders[input.folder] = made.folderIds.at(-1)!;
    return made;
  };
  const red = await imp('red.png', {
    folder: '/photos/summer',
    tags: ['warm', 'sale'],
    description: 'A bright red poster for the summer sale',
    score: 5,
    link: 'https://shop.example.com/red',
    user: ann,
  });
  folders['/photos'] = red.folderIds[0]!;
  await imp('blue.jpg', { folder: '/photos/winter', tags: ['cold'], description: 'Deep blue sea', score: 3, user: bob });
  await imp('half-green.png', { folder: '/photos', tags: ['warm'], user: ann });
  await imp('logo.webp', { folder: '/photos', score: 4 });
  await imp('notes.txt', { folder: '/docs', description: 'Meeting notes about the red campaign', score: 0, link: 'https://wiki.example.com/notes', user: bob });
  await imp('clip.wav', { folder: '/media', score: 1, user: ann });
  await imp('long.wav', { folder: '/media', tags: ['sale'], score: 2 });
  await imp('root.png', {});
  await env.core.assets.libraryEdit.setAnalysisAsOperator(env.core.operatorCtx(), {
    team: teamA.teamId,
    fileId: files['logo.webp']!,
    aiTags: 'brand,emblem',
    aiTitle: 'Company emblem',
    aiDescription: 'A small square emblem in steel blue',
    aiDetailedDescription: [{ label: 'emblem', confidence: 0.92 }],
  });

  const tagRows = await env.orm.em.fork().execute<{ id: number; name: string }[]>('select id, name from library_tags where team_id = ?', [teamA.teamId]);
  const tags = Object.fromEntries(tagRows.map((t) => [t.name, t.id]));

  await writeImage(path('b-red.png'), { width: 400, height: 300, colour: '#ff0000', format: 'png' });
  const ofB = await g.libraryFile(teamB, { file: path('b-red.png'), name: 'red.png', folder: '/photos', tags: ['warm'], description: 'A bright red poster' });
  return { teamA, teamB, keyA, keyB, ann, bob, files, folders, tags, fileOfB: ofB.id, folderOfB: ofB.folderIds[0]!, remove: inputs.remove };
}

/**
 * Registers the hooks every search test file needs: its own environment with a storage
 * directory, and the fixture library built in it (removed afterwards). The fields are set once
 * the file's first beforeAll has run; read them in hooks and tests, not at module level.
 */
export function useSearchLibrary(): { env: TestEnv; lib: SearchLibrary } {
  const fixture = {} as { env: TestEnv; lib: SearchLibrary };
  let storage: Awaited<ReturnType<typeof tempDir>> | undefined;
  beforeAll(async () => {
    storage = await tempDir('search-storage');
    fixture.env = await createTestEnv({ STORAGE_DIR: storage.path });
    fixture.lib = await buildSearchLibrary(fixture.env);
  });
  afterAll(async () => {
    await fixture.env?.close();
    await fixture.lib?.remove();
    await storage?.remove();
  });
  return fixture;
}
