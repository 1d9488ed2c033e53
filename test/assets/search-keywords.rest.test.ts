import { beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../support/env.ts';
import { given } from '../support/given.ts';
import { send } from '../support/http.ts';
import { type SearchLibrary, useSearchLibrary } from '../support/search-library.ts';

const fixture = useSearchLibrary();
let env: TestEnv;
let lib: SearchLibrary;
beforeAll(() => {
  ({ env, lib } = fixture);
});

async function namesOf(body: Record<string, unknown>, key = lib.keyA.key): Promise<string[]> {
  const res = await send(env, { method: 'POST', url: '/open/search-assets', key, body: { endPoint: 100, ...body } });
  expect(res.status, res.text).toBe(200);
  expect(res.body.result.total).toBe(res.body.result.assets.length);
  return res.body.result.assets.map((a: { name: string }) => a.name).sort();
}

describe('search-assets keywords, keywordSearchType DEFAULT (name)', () => {
  it('finds files whose name contains the keyword, ignoring case', async () => {
    expect(await namesOf({ keywords: ['RED'], keywordSearchType: 'DEFAULT' })).toEqual(['red.png']);
    expect(await namesOf({ keywords: ['.wav'], keywordSearchType: 'DEFAULT' })).toEqual(['clip.wav', 'long.wav']);
  });

  it('looks at the name only, not at descriptions, tags or analysis fields', async () => {
    expect(await namesOf({ keywords: ['campaign'], keywordSearchType: 'DEFAULT' })).toEqual([]);
    expect(await namesOf({ keywords: ['emblem'], keywordSearchType: 'DEFAULT' })).toEqual([]);
    expect(await namesOf({ keywords: ['sale'], keywordSearchType: 'DEFAULT' })).toEqual([]);
  });

  it('takes % and _ literally', async () => {
    expect(await namesOf({ keywords: ['%'], keywordSearchType: 'DEFAULT' })).toEqual([]);
    expect(await namesOf({ keywords: ['_'], keywordSearchType: 'DEFAULT' })).toEqual([]);
  });
});

describe('search-assets keywords, keywordSearchType PRECISE (exact name)', () => {
  it('finds the file whose whole name is the keyword, ignoring case', async () => {
    expect(await namesOf({ keywords: ['Logo.WEBP'], keywordSearchType: 'PRECISE' })).toEqual(['logo.webp']);
  });

  it('also finds a name that is the keyword plus one extension', async () => {
    expect(await namesOf({ keywords: ['logo'], keywordSearchType: 'PRECISE' })).toEqual(['logo.webp']);
  });

  it('does not match part of a name', async () => {
    expect(await namesOf({ keywords: ['log'], keywordSearchType: 'PRECISE' })).toEqual([]);
    expect(await namesOf({ keywords: ['half'], keywordSearchType: 'PRECISE' })).toEqual([]);
  });
});

describe('search-assets keywords, keywordSearchType DEEP (the default)', () => {
  it('matches the name, the description, the tag names and the analysis fields', async () => {
    expect(await namesOf({ keywords: ['red'] })).toEqual(['notes.txt', 'red.png']);
    expect(await namesOf({ keywords: ['sale'], keywordSearchType: 'DEEP' })).toEqual(['long.wav', 'red.png']);
    expect(await namesOf({ keywords: ['emblem'] })).toEqual(['logo.webp']);
    expect(await namesOf({ keywords: ['steel blue'] })).toEqual(['logo.webp']);
    expect(await namesOf({ keywords: ['confidence'] })).toEqual(['logo.webp']);
  });

  it('matches inside words (substring), ignoring case', async () => {
    expect(await namesOf({ keywords: ['EMB'] })).toEqual(['logo.webp']);
    expect(await namesOf({ keywords: ['ampai'] })).toEqual(['notes.txt']);
  });

  it('requires every keyword to match (AND)', async () => {
    expect(await namesOf({ keywords: ['red', 'poster'] })).toEqual(['red.png']);
    expect(await namesOf({ keywords: ['red', 'whale'] })).toEqual([]);
  });

  it('follows tag changes: a tag added later is found, a removed one no longer is', async () => {
    const editor = await given(env).ctx(await given(env).key(lib.teamA, 'editable'));
    await env.core.assets.libraryEdit.updateFile(editor, lib.files['root.png']!, { tags: ['Yellowish'] });
    expect(await namesOf({ keywords: ['yellowish'] })).toEqual(['root.png']);
    await env.core.assets.libraryEdit.updateFile(editor, lib.files['root.png']!, { tags: [] });
    expect(await namesOf({ keywords: ['yellowish'] })).toEqual([]);
  });

  it("never finds another team's files", async () => {
    expect(await namesOf({ keywords: ['poster'] }, lib.keyB.key)).toEqual(['red.png']);
    expect(await namesOf({ keywords: ['emblem'] }, lib.keyB.key)).toEqual([]);
  });
});

describe('search-assets keywords, keywordSearchType DEEP_AND_PRECISE', () => {
  it('finds exact names (as PRECISE) and whole words of the deep fields', async () => {
    expect(await namesOf({ keywords: ['red'], keywordSearchType: 'DEEP_AND_PRECISE' })).toEqual(['notes.txt', 'red.png']);
    expect(await namesOf({ keywords: ['emblem'], keywordSearchType: 'DEEP_AND_PRECISE' })).toEqual(['logo.webp']);
    expect(await namesOf({ keywords: ['steel blue'], keywordSearchType: 'DEEP_AND_PRECISE' })).toEqual(['logo.webp']);
  });

  it('does not match inside words', async () => {
    expect(await namesOf({ keywords: ['emb'], keywordSearchType: 'DEEP_AND_PRECISE' })).toEqual([]);
    expect(await namesOf({ keywords: ['ampai'], keywordSearchType: 'DEEP_AND_PRECISE' })).toEqual([]);
  });

  it('takes regular-expression characters literally', async () => {
    expect(await namesOf({ keywords: ['re.'], keywordSearchType: 'DEEP_AND_PRECISE' })).toEqual([]);
    expect(await namesOf({ keywords: ['(red'], keywordSearchType: 'DEEP_AND_PRECISE' })).toEqual([]);
  });
});
