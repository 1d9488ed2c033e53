import type { TestEnv } from './env.ts';

export interface StoredCategory {
  id: number;
  team_id: number;
  brand_id: number;
  parent_id: number | null;
  name: string;
  path_key: string;
  depth: number;
  sort_order: number;
  deleted_at: string | null;
}

/** Every row of a brand's categories straight from the database, deleted ones included. */
export async function storedCategories(env: TestEnv, brandId: number): Promise<StoredCategory[]> {
  return env.orm.em
    .fork()
    .execute<StoredCategory[]>(
      'select id, team_id, brand_id, parent_id, name, path_key, depth, sort_order, deleted_at::text from categories where brand_id = ? order by id',
      [brandId],
    );
}

/**
 * Checks the invariants of spec 2.3 over a brand's live tree and returns the problems found
 * (empty when consistent): every parent live and of the same brand and team, no cycle, pathKey
 * and depth derived from the parent, live sibling names unique, sibling positions 0..n-1.
 */
export async function treeProblems(env: TestEnv, brandId: number): Promise<string[]> {
  const live = (await storedCategories(env, brandId)).filter((c) => c.deleted_at === null);
  const byId = new Map(live.map((c) => [c.id, c]));
  const problems: string[] = [];
  for (const node of live) {
    const seen = new Set<number>();
    let walker: StoredCategory | undefined = node;
    while (walker && walker.parent_id !== null) {
      if (seen.has(walker.id)) {
        problems.push(`cycle through ${node.id}`);
        break;
      }
      seen.add(walker.id);
      walker = byId.get(walker.parent_id);
      if (!walker) problems.push(`${node.id} has an ancestor that is not a live node of the brand`);
    }
    const parent = node.parent_id === null ? null : byId.get(node.parent_id);
    if (node.parent_id !== null && !parent) continue;
    const expectedPath = `${parent ? parent.path_key : ''}/${node.name}`;
    if (node.path_key !== expectedPath) problems.push(`${node.id} has path ${node.path_key}, expected ${expectedPath}`);
    const expectedDepth = parent ? parent.depth + 1 : 1;
    if (node.depth !== expectedDepth) problems.push(`${node.id} has depth ${node.depth}, expected ${expectedDepth}`);
    if (parent && parent.team_id !== node.team_id) problems.push(`${node.id} has a parent of another team`);
  }
  const siblings = Map.groupBy(live, (c) => c.parent_id ?? 0);
  for (const [parentId, group] of siblings) {
    const positions = group.map((c) => c.sort_order).sort((a, b) => a - b);
    if (positions.some((p, i) => p !== i)) problems.push(`children of ${parentId} have positions ${positions.join(',')}`);
    const names = group.map((c) => c.name);
    if (new Set(names).size !== names.length) problems.push(`children of ${parentId} repeat a name`);
  }
  return problems;
}

/** Live children of a parent (0: roots) by position, as names, for readable order assertions. */
export async function childNames(env: TestEnv, brandId: number, parentId: number | null): Promise<string[]> {
  const live = (await storedCategories(env, brandId)).filter((c) => c.deleted_at === null && c.parent_id === parentId);
  return live.sort((a, b) => a.sort_order - b.sort_order).map((c) => c.name);
}
