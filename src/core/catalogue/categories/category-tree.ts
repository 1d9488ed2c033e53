import type { Ctx } from '../../platform/ctx.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import type { CategoryView } from './category.schemas.ts';

/*
 * The SQL that keeps a brand's category tree consistent (spec 2.3): the per-brand lock, subtree
 * walks, sibling renumbering and set-based path rewrites. Every function runs inside the caller's
 * transaction and filters by the caller's team.
 */

/** The columns of the Category representation, optionally qualified by a table alias. */
export function categoryColumns(alias = ''): string {
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

export function viewOf(node: CategoryNode): CategoryView {
  const { depth: _depth, ...view } = node;
  return view;
}

/** The path of a node's parent: names contain no slash, so it is everything before the last one. */
export function parentPathOf(node: Pick<CategoryView, 'pathKey'>): string {
  return node.pathKey.slice(0, node.pathKey.lastIndexOf('/'));
}

/**
 * Serializes every tree change of one brand: the live brand row is locked first, so two moves
 * cannot interleave into a cycle or a stale path, and a brand deletion (which locks the same row
 * FOR UPDATE) cannot slip between "brand is live" and the category insert. Returns false when
 * the brand is not a live brand of the caller's team.
 */
export async function lockLiveBrand(tx: Ctx, brandId: number): Promise<boolean> {
  const row = await queryOne(tx, 'select id from brands where id = ? and team_id = ? and deleted_at is null for no key update', [brandId, tx.teamId]);
  return row !== null;
}

/** A live category of the caller's team, optionally locked for this transaction. */
export async function liveNode(tx: Ctx, id: number, options: { lock?: boolean } = {}): Promise<CategoryNode | null> {
  return queryOne<CategoryNode>(
    tx,
    `select ${NODE_COLUMNS} from categories where id = ? and team_id = ? and deleted_at is null${options.lock ? ' for update' : ''}`,
    [id, tx.teamId],
  );
}

function siblingsOf(parentId: number | null): { sql: string; params: unknown[] } {
  return parentId === null ? { sql: 'parent_id is null', params: [] } : { sql: 'parent_id = ?', params: [parentId] };
}

/** Live children of `parentId` (null: roots) in the brand, not counting `exceptId`. */
export async function liveSiblingCount(tx: Ctx, brandId: number, parentId: number | null, exceptId = 0): Promise<number> {
  const siblings = siblingsOf(parentId);
  const row = await queryOne<{ n: number }>(
    tx,
    `select count(*)::int as n from categories where team_id = ? and brand_id = ? and ${siblings.sql} and deleted_at is null and id <> ?`,
    [tx.teamId, brandId, ...siblings.params, exceptId],
  );
  return row!.n;
}

/** Whether a live sibling other than `exceptId` already has exactly this name. */
export async function siblingNameTaken(tx: Ctx, brandId: number, parentId: number | null, name: string, exceptId = 0): Promise<boolean> {
  const siblings = siblingsOf(parentId);
  const row = await queryOne(
    tx,
    `select 1 from categories where team_id = ? and brand_id = ? and ${siblings.sql} and deleted_at is null and name = ? and id <> ? limit 1`,
    [tx.teamId, brandId, ...siblings.params, name, exceptId],
  );
  return row !== null;
}

export async function liveNodeCount(tx: Ctx, brandId: number): Promise<number> {
  const row = await queryOne<{ n: number }>(tx, 'select count(*)::int as n from categories where team_id = ? and brand_id = ? and deleted_at is null', [
    tx.teamId,
    brandId,
  ]);
  return row!.n;
}

/** A live node and all its live descendants: their ids (the root first) and the deepest depth. */
export async function liveSubtree(tx: Ctx, rootId: number): Promise<{ ids: number[]; maxDepth: number }> {
  const row = await queryOne<{ ids: number[] | null; maxDepth: number | null }>(
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
  return { ids: row?.ids ?? [], maxDepth: row?.maxDepth ?? 0 };
}

/**
 * Renumbers the live children of `parentId` (except `exceptId`) to contiguous positions 0..n-1 in
 * their current order, leaving a hole at `gapAt` for a node about to take that position (null: no
 * hole). One statement, and only rows whose position changes are written.
 */
export async function renumberSiblings(tx: Ctx, brandId: number, parentId: number | null, exceptId: number, gapAt: number | null): Promise<void> {
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
  tx: Ctx,
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
