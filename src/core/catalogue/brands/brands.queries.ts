import type { TeamScope } from '../../platform/ctx.ts';
import { bigintNumber, bool, int, nullableText, text } from '../../platform/row-checks.ts';
import { intArray, preparedSql, queryOne, queryRows, setClauses } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import type { BrandView } from './brand.schemas.ts';

/* Statements on brands. Every statement names the team. */

export const BRAND_COLUMNS = `id, name, code, description, website, sort_order as "sortOrder", is_enabled as "isEnabled",
  ${isoSql('created_at')} as "createdAt", ${isoSql('updated_at')} as "updatedAt"`;

// the two hot reads, prepared so PostgreSQL plans them once per connection (bench/RESULTS-brands.md)
const GET_LIVE_BRAND = preparedSql('brands.get', `select ${BRAND_COLUMNS} from brands where id = ? and team_id = ? and deleted_at is null`);
const LIST_LIVE_BRANDS = preparedSql(
  'brands.listPage',
  `select ${BRAND_COLUMNS}, count(*) over () as total from brands
    where team_id = ? and deleted_at is null
    order by sort_order, id limit ? offset ?`,
);

/** A row of BRAND_COLUMNS as the view, built field by field in the view's order (its ETag hashes it): a rest spread took ~18 µs per page of 100 here, this ~2 µs. */
export function brandOf(row: Record<string, unknown>): BrandView {
  return {
    id: int(row.id, 'id'),
    name: text(row.name, 'name'),
    code: text(row.code, 'code'),
    description: nullableText(row.description, 'description'),
    website: nullableText(row.website, 'website'),
    sortOrder: int(row.sortOrder, 'sortOrder'),
    isEnabled: bool(row.isEnabled, 'isEnabled'),
    createdAt: text(row.createdAt, 'createdAt'),
    updatedAt: text(row.updatedAt, 'updatedAt'),
  };
}

/** A page of the team's live brands by sortOrder then id, with the count of all of them (0 when the page is empty: countLiveBrands tells then). */
export async function liveBrandsPage(scope: TeamScope, limit: number, offset: number): Promise<{ brands: BrandView[]; total: number }> {
  const rows = await queryRows<Record<string, unknown>>(scope, LIST_LIVE_BRANDS, [scope.teamId, limit, offset]);
  return { brands: rows.map(brandOf), total: rows.length > 0 ? bigintNumber(rows[0]!.total, 'total') : 0 };
}

/** How many live brands the team has. */
export async function countLiveBrands(scope: TeamScope): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(scope, 'select count(*) as n from brands where team_id = ? and deleted_at is null', [scope.teamId]);
  return bigintNumber(row!.n, 'n');
}

/** One live brand of the team; null when there is none. */
export async function liveBrand(scope: TeamScope, id: number): Promise<BrandView | null> {
  const row = await queryOne<Record<string, unknown>>(scope, GET_LIVE_BRAND, [id, scope.teamId]);
  return row ? brandOf(row) : null;
}

/** The team's live brands among `ids`. */
export async function liveBrandsAmong(scope: TeamScope, ids: readonly number[]): Promise<BrandView[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${BRAND_COLUMNS} from brands where team_id = ? and deleted_at is null and id = any(?::int[])`,
    [scope.teamId, intArray(ids)],
  );
  return rows.map(brandOf);
}

/** A new brand's values (checked and normalized by the service). */
export interface BrandValues {
  name: string;
  description: string | null;
  website: string | null;
  logoUrl: string | null;
  sortOrder: number;
  isEnabled: boolean;
}

/** Inserts a brand under `code`; null when the team has a brand with that code already. */
export async function insertBrand(tx: TeamScope, values: BrandValues, code: string): Promise<BrandView | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `insert into brands (team_id, name, code, description, website, logo_url, sort_order, is_enabled)
         values (?, ?, ?, ?, ?, ?, ?, ?)
         on conflict (team_id, code) do nothing
         returning ${BRAND_COLUMNS}`,
    [tx.teamId, values.name, code, values.description, values.website, values.logoUrl, values.sortOrder, values.isEnabled],
  );
  return row ? brandOf(row) : null;
}

/** Which of a brand's columns an update sets (checked and normalized by the service); absent ones stay. */
export type BrandChanges = Partial<BrandValues>;

const CHANGE_COLUMNS: readonly [keyof BrandValues, string][] = [
  ['name', 'name'],
  ['description', 'description'],
  ['website', 'website'],
  ['logoUrl', 'logo_url'],
  ['sortOrder', 'sort_order'],
  ['isEnabled', 'is_enabled'],
];

/** Sets the given columns of the brand and its updated_at; the brand afterwards (null when the team has no such brand). */
export async function updateBrand(tx: TeamScope, id: number, changes: BrandChanges): Promise<BrandView | null> {
  const set = setClauses(CHANGE_COLUMNS, changes);
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update brands set ${set.sql}, updated_at = now() where id = ? and team_id = ? returning ${BRAND_COLUMNS}`,
    [...set.params, id, tx.teamId],
  );
  return row ? brandOf(row) : null;
}

/** Soft-deletes the brand. */
export async function softDeleteBrand(tx: TeamScope, id: number): Promise<void> {
  await queryRows(tx, 'update brands set deleted_at = now(), updated_at = now() where id = ? and team_id = ?', [id, tx.teamId]);
}

/** Locks the live brand's row for this transaction; the brand as it is now, or null when there is none. */
export async function lockLiveBrand(tx: TeamScope, id: number): Promise<BrandView | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `select ${BRAND_COLUMNS} from brands where id = ? and team_id = ? and deleted_at is null for update`,
    [id, tx.teamId],
  );
  return row ? brandOf(row) : null;
}

/**
 * Takes a brand's category-tree lock: serializes every tree change of one brand, since the live
 * brand row is locked first, so two moves cannot interleave into a cycle or a stale path, and a
 * brand deletion (which locks the same row FOR UPDATE) cannot slip between "brand is live" and the
 * category insert. False when the brand is not a live brand of the team.
 */
export async function lockLiveBrandTree(tx: TeamScope, brandId: number): Promise<boolean> {
  const row = await queryOne(tx, 'select id from brands where id = ? and team_id = ? and deleted_at is null for no key update', [brandId, tx.teamId]);
  return row !== null;
}

/**
 * Whether the brand is a live brand of the team, its row held FOR SHARE until the transaction ends:
 * a product write that names it, so the brand cannot be deleted (nor its category tree changed)
 * before the write commits.
 */
export async function lockLiveBrandForShare(tx: TeamScope, brandId: number): Promise<boolean> {
  return (await queryOne(tx, 'select id from brands where id = ? and team_id = ? and deleted_at is null for share', [brandId, tx.teamId])) !== null;
}

/** The live brands of the team among `ids` (a template's brand bindings). */
export async function liveBrandIdsAmong(scope: TeamScope, ids: readonly number[]): Promise<Set<number>> {
  const rows = await queryRows<Record<string, unknown>>(scope, 'select id from brands where team_id = ? and deleted_at is null and id = any(?::int[])', [
    scope.teamId,
    intArray(ids),
  ]);
  return new Set(rows.map((row) => int(row.id, 'id')));
}
