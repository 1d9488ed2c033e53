import type { TeamScope } from '../../platform/ctx.ts';
import { bool, int, intList, nullableInt, nullableText, oneOf, text } from '../../platform/row-checks.ts';
import { intArray, preparedSql, queryOne, queryRows, setClauses } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import type { BrandView } from '../brands/brand.schemas.ts';
import { BRAND_COLUMNS, brandOf } from '../brands/brands.queries.ts';
import type { CategoryView } from './category.schemas.ts';

/*
 * Statements on categories, among them those that keep a brand's category tree consistent
 * (spec 2.3): subtree walks, sibling renumbering and set-based path rewrites. Every statement
 * names the team; the tree's writes run inside the caller's transaction, after it took the brand's
 * tree lock (brands.queries.ts lockLiveBrandTree).
 */

/** The columns of the Category representation, optionally qualified by a table alias. */
function categoryColumns(alias = ''): string {
  const a = alias ? `${alias}.` : '';
  return `${a}id, ${a}brand_id as "brandId", ${a}parent_id as "parentId", ${a}name, ${a}path_key as "pathKey",
    ${a}description, ${a}icon_emoji as "iconEmoji", ${a}icon_asset_id as "iconAssetId", ${a}sort_order as "sortOrder",
    ${a}is_enabled as "isEnabled", ${isoSql(`${a}created_at`)} as "createdAt", ${isoSql(`${a}updated_at`)} as "updatedAt"`;
}

/** A live category with the tree columns the representation leaves out. */
export interface CategoryNode extends CategoryView {
  depth: number;
}

const NODE_COLUMNS = `${categoryColumns()}, depth`;

/** A row of categoryColumns() as the view, in the view's order (its ETag hashes it). */
function categoryOf(row: Record<string, unknown>): CategoryView {
  return {
    id: int(row.id, 'id'),
    brandId: int(row.brandId, 'brandId'),
    parentId: nullableInt(row.parentId, 'parentId'),
    name: text(row.name, 'name'),
    pathKey: text(row.pathKey, 'pathKey'),
    description: nullableText(row.description, 'description'),
    iconEmoji: nullableText(row.iconEmoji, 'iconEmoji'),
    iconAssetId: nullableInt(row.iconAssetId, 'iconAssetId'),
    sortOrder: int(row.sortOrder, 'sortOrder'),
    isEnabled: bool(row.isEnabled, 'isEnabled'),
    createdAt: text(row.createdAt, 'createdAt'),
    updatedAt: text(row.updatedAt, 'updatedAt'),
  };
}

function nodeOf(row: Record<string, unknown>): CategoryNode {
  return { ...categoryOf(row), depth: int(row.depth, 'depth') };
}

/** Which categories a page lists: the team's live ones, or only those of one brand. */
function brandFilter(scope: TeamScope, brandId: number | null): { sql: string; params: unknown[] } {
  return brandId !== null ? { sql: ' and brand_id = ?', params: [scope.teamId, brandId] } : { sql: '', params: [scope.teamId] };
}

/**
 * A page of the team's live categories (of one brand, unless null) by brandId, parentId (roots
 * first), sortOrder, id, with the count of all of them (0 when the page is empty: countLiveCategories
 * tells then). The page is chosen on the narrow index columns alone and only its rows are read and
 * rendered: an offset page no longer formats every skipped row (docs/categories.md, bench/RESULTS-categories.md).
 */
export async function liveCategoriesPage(
  scope: TeamScope,
  brandId: number | null,
  limit: number,
  offset: number,
): Promise<{ categories: CategoryView[]; total: number }> {
  const filter = brandFilter(scope, brandId);
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `with page as (
         select id, brand_id, parent_id, sort_order, count(*) over ()::int as total from categories
          where team_id = ? and deleted_at is null${filter.sql}
          order by brand_id, parent_id nulls first, sort_order, id limit ? offset ?
       )
       select ${categoryColumns('c')}, page.total from page join categories c on c.id = page.id
        order by page.brand_id, page.parent_id nulls first, page.sort_order, page.id`,
    [...filter.params, limit, offset],
  );
  return { categories: rows.map(categoryOf), total: rows.length > 0 ? int(rows[0]!.total, 'total') : 0 };
}

/** How many live categories the team has (of one brand, unless null). */
export async function countLiveCategories(scope: TeamScope, brandId: number | null): Promise<number> {
  const filter = brandFilter(scope, brandId);
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `select count(*)::int as n from categories where team_id = ? and deleted_at is null${filter.sql}`,
    filter.params,
  );
  return int(row!.n, 'n');
}

/**
 * The page liveCategoriesPage reads, and in the same statement the live parents its items name
 * that are not on the page themselves: a page of a tree with its parents in one round trip.
 */
export async function liveCategoriesPageWithParents(
  scope: TeamScope,
  brandId: number | null,
  limit: number,
  offset: number,
): Promise<{ categories: CategoryView[]; parents: CategoryView[]; total: number }> {
  const filter = brandFilter(scope, brandId);
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `with page as (
         select id, parent_id, count(*) over ()::int as total from categories
          where team_id = ? and deleted_at is null${filter.sql}
          order by brand_id, parent_id nulls first, sort_order, id limit ? offset ?
       )
       select ${categoryColumns('c')}, page.total, false as "isParent" from page join categories c on c.id = page.id
       union all
       select ${categoryColumns('c')}, 0, true from categories c
        where c.team_id = ? and c.deleted_at is null
          and c.id in (select parent_id from page) and c.id not in (select id from page)
       order by "isParent", "brandId", "parentId" nulls first, "sortOrder", id`,
    [...filter.params, limit, offset, scope.teamId],
  );
  const categories: CategoryView[] = [];
  const parents: CategoryView[] = [];
  for (const row of rows) (bool(row.isParent, 'isParent') ? parents : categories).push(categoryOf(row));
  return { categories, parents, total: categories.length > 0 ? int(rows[0]!.total, 'total') : 0 };
}

/** The team's live categories among `ids`. */
export async function liveCategoriesAmong(scope: TeamScope, ids: readonly number[]): Promise<CategoryView[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${categoryColumns()} from categories where team_id = ? and deleted_at is null and id = any(?::int[])`,
    [scope.teamId, intArray(ids)],
  );
  return rows.map(categoryOf);
}

// prepared: a GraphQL page of products runs it on every request. Plain rows of one shape (a brand
// row's category columns are null, and the other way round): half the PostgreSQL time of two
// json_agg subqueries for a page of 100
const BRANDS_AND_CATEGORIES = preparedSql(
  'categories.withBrands',
  `select 'brand' as kind, ${BRAND_COLUMNS}, null::int as "brandId", null::int as "parentId", null::text as "pathKey",
          null::text as "iconEmoji", null::int as "iconAssetId"
     from brands where team_id = ? and deleted_at is null and id = any(?::int[])
   union all
   select 'category', id, name, null, description, null, sort_order, is_enabled, ${isoSql('created_at')}, ${isoSql('updated_at')},
          brand_id, parent_id, path_key, icon_emoji, icon_asset_id
     from categories where team_id = ? and deleted_at is null and id = any(?::int[])`,
);

const REFERENCE_KINDS = ['brand', 'category'] as const;

/**
 * The team's live brands among `brandIds` and live categories among `categoryIds`, in one statement
 * (each row read by the same mapper as the separate reads): what a page of products references,
 * for a client that asks for both.
 */
export async function liveBrandsAndCategoriesAmong(
  scope: TeamScope,
  brandIds: readonly number[],
  categoryIds: readonly number[],
): Promise<{ brands: BrandView[]; categories: CategoryView[] }> {
  const rows = await queryRows<Record<string, unknown>>(scope, BRANDS_AND_CATEGORIES, [scope.teamId, intArray(brandIds), scope.teamId, intArray(categoryIds)]);
  const brands: BrandView[] = [];
  const categories: CategoryView[] = [];
  for (const row of rows) {
    if (oneOf(REFERENCE_KINDS, row.kind, 'kind') === 'brand') brands.push(brandOf(row));
    else categories.push(categoryOf(row));
  }
  return { brands, categories };
}

/** The live children of the parents `parentIds`, by parent id, then in sibling order. */
export async function liveChildrenOf(scope: TeamScope, parentIds: readonly number[]): Promise<CategoryView[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${categoryColumns()} from categories where team_id = ? and deleted_at is null and parent_id = any(?::int[])
        order by parent_id, sort_order, id`,
    [scope.teamId, intArray(parentIds)],
  );
  return rows.map(categoryOf);
}

/** Whether the brand has live categories. */
export async function hasLiveCategoryInBrand(scope: TeamScope, brandId: number): Promise<boolean> {
  const row = await queryOne(scope, 'select 1 from categories where team_id = ? and brand_id = ? and deleted_at is null limit 1', [scope.teamId, brandId]);
  return row !== null;
}

/** Whether the category is a live category of the team. */
export async function isLiveCategory(scope: TeamScope, categoryId: number): Promise<boolean> {
  const row = await queryOne(scope, 'select id from categories where id = ? and team_id = ? and deleted_at is null', [categoryId, scope.teamId]);
  return row !== null;
}

/** The brand of a live category of the team; null when there is no such category. */
export async function liveCategoryBrand(scope: TeamScope, categoryId: number): Promise<number | null> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    'select brand_id as "brandId" from categories where id = ? and team_id = ? and deleted_at is null',
    [categoryId, scope.teamId],
  );
  return row && int(row.brandId, 'brandId');
}

/** The live categories of the team among `ids`, each with its brand. */
export async function liveCategoryBrandsAmong(scope: TeamScope, ids: readonly number[]): Promise<Map<number, number>> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    'select id, brand_id from categories where team_id = ? and deleted_at is null and id = any(?::int[])',
    [scope.teamId, intArray(ids)],
  );
  return new Map(rows.map((row) => [int(row.id, 'id'), int(row.brand_id, 'brand_id')]));
}

/** A live category of the team, optionally locked for this transaction. */
export async function liveNode(tx: TeamScope, id: number, options: { lock?: boolean } = {}): Promise<CategoryNode | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `select ${NODE_COLUMNS} from categories where id = ? and team_id = ? and deleted_at is null${options.lock ? ' for update' : ''}`,
    [id, tx.teamId],
  );
  return row ? nodeOf(row) : null;
}

function siblingsOf(parentId: number | null): { sql: string; params: unknown[] } {
  return parentId === null ? { sql: 'parent_id is null', params: [] } : { sql: 'parent_id = ?', params: [parentId] };
}

/** Live children of `parentId` (null: roots) in the brand, not counting `exceptId`. */
export async function liveSiblingCount(tx: TeamScope, brandId: number, parentId: number | null, exceptId = 0): Promise<number> {
  const siblings = siblingsOf(parentId);
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `select count(*)::int as n from categories where team_id = ? and brand_id = ? and ${siblings.sql} and deleted_at is null and id <> ?`,
    [tx.teamId, brandId, ...siblings.params, exceptId],
  );
  return int(row!.n, 'n');
}

/** Whether a live sibling other than `exceptId` already has exactly this name. */
export async function siblingNameTaken(tx: TeamScope, brandId: number, parentId: number | null, name: string, exceptId = 0): Promise<boolean> {
  const siblings = siblingsOf(parentId);
  const row = await queryOne(
    tx,
    `select 1 from categories where team_id = ? and brand_id = ? and ${siblings.sql} and deleted_at is null and name = ? and id <> ? limit 1`,
    [tx.teamId, brandId, ...siblings.params, name, exceptId],
  );
  return row !== null;
}

/** How many live categories the brand has. */
export async function liveNodeCount(tx: TeamScope, brandId: number): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    'select count(*)::int as n from categories where team_id = ? and brand_id = ? and deleted_at is null',
    [tx.teamId, brandId],
  );
  return int(row!.n, 'n');
}

/** A live node and all its live descendants: their ids (the root first) and the deepest depth. */
export async function liveSubtree(tx: TeamScope, rootId: number): Promise<{ ids: number[]; maxDepth: number }> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `with recursive subtree as (
       select id, depth from categories where id = ? and team_id = ? and deleted_at is null
       union all
       select c.id, c.depth from categories c join subtree s on c.parent_id = s.id
        where c.team_id = ? and c.deleted_at is null
     )
     select array_agg(id order by depth, id) as ids, max(depth) as "maxDepth" from subtree`,
    [rootId, tx.teamId, tx.teamId],
  );
  // an empty subtree aggregates to nulls
  return {
    ids: row === null || row.ids === null ? [] : intList(row.ids, 'ids'),
    maxDepth: row === null ? 0 : (nullableInt(row.maxDepth, 'maxDepth') ?? 0),
  };
}

/**
 * Renumbers the live children of `parentId` (except `exceptId`) to contiguous positions 0..n-1 in
 * their current order, leaving a hole at `gapAt` for a node about to take that position (null: no
 * hole). One statement, and only rows whose position changes are written.
 */
export async function renumberSiblings(tx: TeamScope, brandId: number, parentId: number | null, exceptId: number, gapAt: number | null): Promise<void> {
  const siblings = siblingsOf(parentId);
  const gap = gapAt ?? 2147483647;
  await queryRows(
    tx,
    `update categories c set sort_order = r.position, updated_at = now()
       from (select id, (row_number() over (order by sort_order, id) - 1)::int
                        + ((row_number() over (order by sort_order, id) - 1) >= ?)::int as position
               from categories
              where team_id = ? and brand_id = ? and ${siblings.sql} and deleted_at is null and id <> ?) r
      where c.id = r.id and c.sort_order <> r.position`,
    [gap, tx.teamId, brandId, ...siblings.params, exceptId],
  );
}

/**
 * Rewrites the paths and depths of the given descendants after their ancestor's path changed from
 * `oldPrefix` to `newPrefix`: one set-based statement, however large the subtree.
 */
export async function rewriteDescendantPaths(
  tx: TeamScope,
  descendantIds: readonly number[],
  oldPrefix: string,
  newPrefix: string,
  depthDelta: number,
): Promise<void> {
  if (descendantIds.length === 0) return;
  await queryRows(
    tx,
    `update categories set path_key = ?::text || substr(path_key, char_length(?::text) + 1), depth = depth + ?, updated_at = now()
      where team_id = ? and id = any(?::int[])`,
    [newPrefix, oldPrefix, depthDelta, tx.teamId, intArray(descendantIds)],
  );
}

/** A new category's values, checked and placed by the service. */
export interface CategoryValues {
  brandId: number;
  parentId: number | null;
  name: string;
  pathKey: string;
  depth: number;
  description: string | null;
  iconEmoji: string | null;
  iconAssetId: number | null;
  sortOrder: number;
  isEnabled: boolean;
}

/** Inserts a category. */
export async function insertCategory(tx: TeamScope, values: CategoryValues): Promise<CategoryView> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `insert into categories (team_id, brand_id, parent_id, name, path_key, depth, description, icon_emoji, icon_asset_id, sort_order, is_enabled)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning ${categoryColumns()}`,
    [
      tx.teamId,
      values.brandId,
      values.parentId,
      values.name,
      values.pathKey,
      values.depth,
      values.description,
      values.iconEmoji,
      values.iconAssetId,
      values.sortOrder,
      values.isEnabled,
    ],
  );
  return categoryOf(row!);
}

/** Where an updated category sits: always written. */
export interface CategoryPlacement {
  parentId: number | null;
  pathKey: string;
  depth: number;
}

/** Which other columns an update sets; absent ones stay. */
export interface CategoryChanges {
  sortOrder?: number;
  name?: string;
  description?: string | null;
  iconEmoji?: string | null;
  iconAssetId?: number | null;
  isEnabled?: boolean;
}

/** The placement's columns first, then the changed ones. */
const UPDATE_COLUMNS: readonly [keyof (CategoryPlacement & CategoryChanges), string][] = [
  ['parentId', 'parent_id'],
  ['pathKey', 'path_key'],
  ['depth', 'depth'],
  ['sortOrder', 'sort_order'],
  ['name', 'name'],
  ['description', 'description'],
  ['iconEmoji', 'icon_emoji'],
  ['iconAssetId', 'icon_asset_id'],
  ['isEnabled', 'is_enabled'],
];

/** Writes a category's placement, the given columns and its updated_at; the category afterwards. */
export async function updateCategory(tx: TeamScope, id: number, placement: CategoryPlacement, changes: CategoryChanges): Promise<CategoryView> {
  const set = setClauses(UPDATE_COLUMNS, { ...changes, ...placement });
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update categories set ${set.sql}, updated_at = now() where id = ? and team_id = ? returning ${categoryColumns()}`,
    [...set.params, id, tx.teamId],
  );
  return categoryOf(row!);
}

/** Soft-deletes the categories `ids` (a subtree). */
export async function softDeleteCategories(tx: TeamScope, ids: readonly number[]): Promise<void> {
  await queryRows(tx, 'update categories set deleted_at = now(), updated_at = now() where team_id = ? and id = any(?::int[])', [tx.teamId, intArray(ids)]);
}
