import { describe, expect, it } from 'vitest';
import { assetRowOf } from '../../src/core/assets/search/asset-rows.queries.ts';

/*
 * The rows search pages, folder shares and library events build AssetItems from are checked
 * column by column (row-checks.ts): a statement that returned another type fails naming the
 * column, instead of sending a wrong type to a client.
 */

const row = {
  id: 7,
  parentIds: [1, 3],
  ownerId: null,
  name: 'sunset.jpg',
  source: 2,
  link: null,
  extension: 'jpg',
  durationMs: null,
  sizeKb: 12,
  width: 4000,
  height: 3000,
  description: null,
  score: 4,
  createTime: '2026-11-27T05:00:00.000000Z',
  createUserId: 3,
  updateTime: '2026-11-27T05:00:00.000000Z',
  updateUserId: null,
  mimeType: 'image/jpeg',
  aiTags: null,
  aiTitle: null,
  aiDescription: null,
  aiDetailedDescription: [{ label: 'sky' }],
};

describe('assetRowOf', () => {
  it('keeps a row whose columns have their types, with its tags when the statement read them', () => {
    expect(assetRowOf(row)).toEqual(row);
    expect(assetRowOf({ ...row, tags: [{ id: 2, name: 'beach' }] }).tags).toEqual([{ id: 2, name: 'beach' }]);
    expect('tags' in assetRowOf(row)).toBe(false);
  });

  it('names the column whose value has the wrong type', () => {
    // bigint and numeric columns come back as strings when a statement forgets its cast
    expect(() => assetRowOf({ ...row, sizeKb: '12' })).toThrow(/column sizeKb/);
    expect(() => assetRowOf({ ...row, parentIds: '{1,3}' })).toThrow(/column parentIds/);
    expect(() => assetRowOf({ ...row, aiDetailedDescription: { label: 'sky' } })).toThrow(/column aiDetailedDescription/);
    expect(() => assetRowOf({ ...row, tags: [{ id: 2, name: null }] })).toThrow(/column tags\[0\]\.name/);
    expect(() => assetRowOf({ ...row, mimeType: null })).toThrow(/column mimeType/);
  });
});
