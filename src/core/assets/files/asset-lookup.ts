import { type Static, Type } from 'typebox';
import { requirePermission } from '../../access/roles.ts';
import type { Ctx, TeamScope } from '../../platform/ctx.ts';
import { invalid } from '../../platform/errors.ts';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';
import { normalizePage, type Page, paginationOf } from '../../platform/pagination.ts';
import { escapeLike } from '../../platform/sql.ts';
import { compileInput } from '../../platform/validate.ts';
import type { VersionedMemo } from '../../platform/versioned-memo.ts';
import { parseFolderPath } from '../folders/folders.ts';
import { libraryVersionOf } from '../search/library-versions.queries.ts';
import {
  countLookupMatches,
  type LookupFolder,
  type LookupRow,
  lookupMatches,
  lookupMatchesKey,
  lookupPage,
  lookupPageByNameMatches,
  lookupPageByNameWalk,
  lookupRowsByIds,
} from './asset-lookup.queries.ts';
import { countNameMatches, nameMatchIds } from './file-names.queries.ts';
import type { FolderView, MediaObject } from './library.schemas.ts';

/** `GET /v1/assets` filters (docs/products.md "Asset lookup"); unknown query parameters are ignored, as elsewhere. */
export const AssetLookupQuery = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'The file name contains this text, case-insensitive.' })),
  folder: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'A folder path like /photos/summer: files in that folder (and below it with recursive=true); "/" is the library root.',
    }),
  ),
  recursive: Type.Optional(Type.Boolean({ description: "With folder: include the folder's whole subtree. Default false." })),
  extension: Type.Optional(Type.String({ pattern: '^\\.?[A-Za-z0-9]{1,32}$', description: 'File extension, with or without the dot, case-insensitive.' })),
  sha256: Type.Optional(
    Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'The SHA-256 of the content (hex): every file holding exactly those bytes.' }),
  ),
  ids: Type.Optional(
    Type.String({ pattern: '^[1-9][0-9]{0,9}(,[1-9][0-9]{0,9}){0,99}$', description: 'Up to 100 file-path IDs (each 1-2147483647), comma-separated.' }),
  ),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Page from 1 (default 1).' })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Items per page (default 20, values above 100 count as 100).' })),
});
export type AssetLookupQuery = Static<typeof AssetLookupQuery>;

/** One file as asset lookup returns it: what a product's media reference needs. */
export const AssetLookupItem = Type.Object(
  {
    id: Type.Integer({ description: 'The file-path ID: what product media (imageAssetIds, coverAssetId, relatedAssetIds) take.' }),
    assetId: Type.Integer({ description: 'The stored object (the bytes), shared by every file with the same content; not for product media.' }),
    name: Type.String({ description: 'The file name.' }),
    folderPath: Type.String({ description: 'The folder path, "/" for the root.' }),
    mimeType: Type.String({ description: 'MIME type by content.' }),
    size: Type.String({ description: 'Bytes, as a decimal string (spec 2.1).' }),
    width: Type.Union([Type.Integer(), Type.Null()], { description: 'Pixels; null for non-images.' }),
    height: Type.Union([Type.Integer(), Type.Null()], { description: 'Pixels; null for non-images.' }),
    duration: Type.Union([Type.Number(), Type.Null()], { description: 'Seconds, for audio and video; null otherwise.' }),
    previewUrl: Type.Union([Type.String(), Type.Null()], { description: 'Signed, expiring preview link (as in product media); null when none.' }),
  },
  { $id: 'AssetLookupItem', additionalProperties: false },
);
export type AssetLookupItem = Static<typeof AssetLookupItem>;

const checkQuery = compileInput(AssetLookupQuery);

/**
 * A first lookup of a name (cold) with up to this many matches reads its page by id from the narrow
 * name table's matches; with more, it walks the narrow table in id order, which a common name fills
 * within a few pages' rows.
 */
const FEW_NAME_MATCHES = 2_000;

/**
 * A name looked up again at the same library version with up to this many matches gets its match
 * ids read once and kept (sorted) in the memo; its pages are then slices of them, as cheap as a
 * lookup by ids. The first lookup never pays for reading them: gathering 50,000 ids doubles the cost
 * of the count (bench/RESULTS-catalogue-reads.md).
 */
const NAME_MATCH_IDS_MAX = 100_000;

/** Memos of lookup facts kept per library version; null: nothing is kept, every call reads afresh. */
export interface LookupMemos {
  /** Exact lookup totals (shared with asset search). */
  totals: VersionedMemo<number>;
  /** The ids, ascending, of the files matching a name looked up more than once. */
  nameMatchIds: VersionedMemo<Int32Array>;
}

/** What asset lookup reads of the library (LibraryService): a folder by its path and the files' media objects. */
export interface LookupLibrary {
  findFolderByPath(scope: TeamScope, path: string): Promise<FolderView | null>;
  mediaFor(ctx: Ctx, ids: readonly number[]): Promise<Map<number, MediaObject>>;
}

/**
 * Asset lookup (spec 2.1 "the id returned by asset lookup"): a sync job finds the file-path IDs its
 * products' media must reference, by name, folder, extension, content hash or id. Any role; the
 * team's live files only, ordered by id; the name filter uses the search's trigram index.
 * `fewNameMatches`: the most matches of a first lookup by name alone read by id from the narrow
 * table's matches (tests compare both ways of reading a page).
 */
export async function lookupAssets(
  ctx: Ctx,
  library: LookupLibrary,
  memos: LookupMemos | null,
  input: unknown,
  fewNameMatches = FEW_NAME_MATCHES,
): Promise<Page<AssetLookupItem>> {
  requirePermission(ctx, 'products:read');
  const query = checkQuery(input);
  // the pattern bounds the digits; an id past int4 would fail the int[] cast as a 500
  if (query.ids?.split(',').some((id) => Number(id) > MAX_RESOURCE_ID)) throw invalid('ids', `each id must be 1-${MAX_RESOURCE_ID}`);
  const page = normalizePage(query);
  const namePattern = query.name === undefined ? null : `%${escapeLike(query.name.toLowerCase())}%`;
  let folder: LookupFolder | null = null;
  if (query.folder !== undefined) {
    const segments = parseFolderPath(query.folder);
    if (segments.length === 0) {
      if (!query.recursive) folder = 'root';
    } else {
      const found = await library.findFolderByPath(ctx, query.folder);
      if (!found) return { items: [], pagination: paginationOf(page, 0) };
      folder = { id: found.id, recursive: query.recursive === true };
    }
  }
  const matches = lookupMatches(ctx, {
    namePattern,
    folder,
    extension: query.extension === undefined ? null : query.extension.replace(/^\./, '').toLowerCase(),
    sha256: query.sha256 === undefined ? null : query.sha256.toLowerCase(),
    ids: query.ids === undefined ? null : query.ids.split(',').map(Number),
  });
  const offset = (page.page - 1) * page.pageSize;
  // an exact count reads every match; it is kept per library version, so the next pages and
  // repeats of a lookup reuse it (bench/RESULTS-catalogue-reads.md)
  const version = memos ? await libraryVersionOf(ctx) : null;
  const remembered = <T>(memo: VersionedMemo<T> | undefined, key: string, compute: () => Promise<T>): Promise<T> =>
    memo && version !== null ? memo.get(ctx.teamId, version, key, compute) : compute();
  let count: number;
  let rows: LookupRow[];
  const countKey = lookupMatchesKey(matches);
  const nameOnly = namePattern !== null && query.folder === undefined && query.extension === undefined && query.sha256 === undefined && query.ids === undefined;
  if (nameOnly) {
    // a name alone is counted on the narrow name table (its trigram rechecks read small rows), and
    // its page chosen by that count: none; a slice of the kept ids (a name looked up before at this
    // version); a few, read by id from the narrow table's matches; many, the narrow table walked by id
    const seenBefore = memos !== null && version !== null && memos.totals.peek(ctx.teamId, version, countKey) !== undefined;
    count = await remembered(memos?.totals, countKey, () => countNameMatches(ctx, namePattern));
    if (offset >= count) rows = [];
    else if (seenBefore && count <= NAME_MATCH_IDS_MAX) {
      const ids = await remembered(memos?.nameMatchIds, namePattern, () => nameMatchIds(ctx, namePattern));
      rows = await lookupRowsByIds(ctx, ids.subarray(offset, offset + page.pageSize), page.pageSize);
    } else if (count <= fewNameMatches) rows = await lookupPageByNameMatches(ctx, namePattern, page.pageSize, offset);
    else rows = await lookupPageByNameWalk(ctx, namePattern, page.pageSize, offset);
  } else {
    [count, rows] = await Promise.all([
      remembered(memos?.totals, countKey, () => countLookupMatches(ctx, matches)),
      lookupPage(ctx, matches, page.pageSize, offset),
    ]);
  }
  const media = await library.mediaFor(
    ctx,
    rows.map((r) => r.id),
  );
  const items = rows.flatMap((row) => {
    const m = media.get(row.id);
    if (!m) return [];
    return [
      {
        id: row.id,
        assetId: row.assetId,
        name: row.name,
        folderPath: row.folderPath,
        mimeType: m.mimeType!,
        size: m.size!,
        width: m.width ?? null,
        height: m.height ?? null,
        duration: m.duration ?? null,
        previewUrl: m.previewUrl ?? null,
      },
    ];
  });
  return { items, pagination: paginationOf(page, count) };
}
