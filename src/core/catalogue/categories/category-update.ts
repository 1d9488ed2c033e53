import type { Ctx } from '../../platform/ctx.ts';
import { DomainError, invalid } from '../../platform/errors.ts';
import {
  type CategoryChanges,
  liveNode,
  liveSiblingCount,
  liveSubtree,
  renumberSiblings,
  rewriteDescendantPaths,
  siblingNameTaken,
  updateCategory,
} from './categories.queries.ts';
import { CATEGORY_MAX_DEPTH, type CategoryPatch, type CategoryView } from './category.schemas.ts';
import { type CategoryNode, parentPathOf } from './category-tree.ts';

/** Where the node goes: its parent, path, depth and (when it changes) its sibling position. */
interface Placement {
  parentId: number | null;
  pathKey: string;
  depth: number;
  /** The new zero-based position, or null to keep the current one. */
  position: number | null;
  moving: boolean;
}

/**
 * Resolves and checks the destination of a patch (spec 4.3: same brand, no cycle, depth <= 10,
 * sort index within the destination's live siblings, unique sibling name) before anything is
 * written, so a refused update changes nothing.
 */
async function planPlacement(
  tx: Ctx,
  current: CategoryNode,
  patch: CategoryPatch,
): Promise<{ placement: Placement; subtree: { ids: number[]; maxDepth: number } | null }> {
  const moving = patch.parentId !== undefined && patch.parentId !== current.parentId;
  const parentId = moving ? (patch.parentId ?? null) : current.parentId;
  const name = patch.name ?? current.name;
  let parentPath = parentPathOf(current);
  let depth = current.depth;
  let subtree: { ids: number[]; maxDepth: number } | null = null;
  if (moving) {
    parentPath = '';
    depth = 1;
    if (parentId !== null) {
      const parent = await liveNode(tx, parentId);
      if (!parent || parent.brandId !== current.brandId) throw invalid('parentId', 'must be a live category of the same brand');
      parentPath = parent.pathKey;
      depth = parent.depth + 1;
    }
    subtree = await liveSubtree(tx, current.id);
    if (parentId !== null && subtree.ids.includes(parentId)) {
      throw invalid('parentId', 'cannot move a category under itself or one of its descendants');
    }
    if (depth + (subtree.maxDepth - current.depth) > CATEGORY_MAX_DEPTH) {
      throw invalid('parentId', `the moved subtree would be deeper than ${CATEGORY_MAX_DEPTH} levels`);
    }
  }
  const siblings = await liveSiblingCount(tx, current.brandId, parentId, current.id);
  // a move appends unless told otherwise; a same-parent update keeps its place unless told otherwise
  const position = moving ? (patch.sortOrder ?? siblings) : (patch.sortOrder ?? null);
  if (position !== null && position > siblings) {
    throw invalid('sortOrder', `must be at most ${siblings}, the number of live siblings at the destination`);
  }
  if ((moving || name !== current.name) && (await siblingNameTaken(tx, current.brandId, parentId, name, current.id))) {
    throw new DomainError('name_in_use', 'A live sibling category already has this name');
  }
  return { placement: { parentId, pathKey: `${parentPath}/${name}`, depth, position, moving }, subtree };
}

/**
 * Applies a validated CategoryPatch to a locked live category (spec 4.3): renumbers the old and
 * new siblings, rewrites the paths and depths of the whole subtree when the path changes (all in
 * the caller's transaction), then updates the node itself.
 */
export async function applyCategoryPatch(tx: Ctx, current: CategoryNode, patch: CategoryPatch): Promise<CategoryView> {
  const { placement, subtree: planned } = await planPlacement(tx, current, patch);
  if (placement.moving) await renumberSiblings(tx, current.brandId, current.parentId, current.id, null);
  if (placement.position !== null) await renumberSiblings(tx, current.brandId, placement.parentId, current.id, placement.position);
  if (placement.pathKey !== current.pathKey) {
    const subtree = planned ?? (await liveSubtree(tx, current.id));
    const descendants = subtree.ids.filter((id) => id !== current.id);
    await rewriteDescendantPaths(tx, descendants, current.pathKey, placement.pathKey, placement.depth - current.depth);
  }
  const changes: CategoryChanges = {};
  if (placement.position !== null) changes.sortOrder = placement.position;
  if (patch.name !== undefined) changes.name = patch.name;
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.iconEmoji !== undefined) changes.iconEmoji = patch.iconEmoji;
  if (patch.iconAssetId !== undefined) changes.iconAssetId = patch.iconAssetId;
  if (patch.isEnabled !== undefined) changes.isEnabled = patch.isEnabled;
  return updateCategory(tx, current.id, placement, changes);
}
