import type { CategoryNode } from './categories.queries.ts';
import type { CategoryView } from './category.schemas.ts';

/*
 * A brand's category tree (spec 2.3): what the tree's nodes are beyond the representation. The
 * statements that keep it consistent (subtree walks, sibling renumbering, set-based path rewrites)
 * are in categories.queries.ts; the per-brand tree lock in brands.queries.ts (lockLiveBrandTree).
 */

export type { CategoryNode } from './categories.queries.ts';

export function viewOf(node: CategoryNode): CategoryView {
  const { depth: _depth, ...view } = node;
  return view;
}

/** The path of a node's parent: names contain no slash, so it is everything before the last one. */
export function parentPathOf(node: Pick<CategoryView, 'pathKey'>): string {
  return node.pathKey.slice(0, node.pathKey.lastIndexOf('/'));
}
