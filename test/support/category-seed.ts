import type { EntityManager } from '@mikro-orm/postgresql';

/** One node of a seeded tree; parents must come before their children. */
export interface SeedNode {
  key: string;
  parentKey: string | null;
  name: string;
}

interface Placed {
  parentKey: string | null;
  name: string;
  pathKey: string;
  depth: number;
  sortOrder: number;
}

/**
 * Writes a consistent live category tree straight into the database (paths, depths and contiguous
 * sibling positions computed here), one insert per level. For large fixtures (node limits, query
 * counts, benchmarks) that would take minutes through the API; returns the id of every key.
 */
export async function seedCategories(em: EntityManager, scope: { teamId: number; brandId: number }, nodes: SeedNode[]): Promise<Map<string, number>> {
  const placed = new Map<string, Placed>();
  const childCount = new Map<string | null, number>();
  for (const node of nodes) {
    const parent = node.parentKey === null ? null : placed.get(node.parentKey);
    if (node.parentKey !== null && !parent) throw new Error(`seed: parent ${node.parentKey} of ${node.key} comes later or is missing`);
    const sortOrder = childCount.get(node.parentKey) ?? 0;
    childCount.set(node.parentKey, sortOrder + 1);
    placed.set(node.key, {
      parentKey: node.parentKey,
      name: node.name,
      pathKey: `${parent?.pathKey ?? ''}/${node.name}`,
      depth: (parent?.depth ?? 0) + 1,
      sortOrder,
    });
  }
  // existing roots of the brand already hold positions 0..n-1; seeded roots go after them
  const existing = await em.execute<{ n: number }[]>(
    'select count(*)::int as n from categories where brand_id = ? and parent_id is null and deleted_at is null',
    [scope.brandId],
  );
  const rootOffset = existing[0]!.n;
  const ids = new Map<string, number>();
  const levels = Map.groupBy([...placed.entries()], ([, p]) => p.depth);
  for (const depth of [...levels.keys()].sort((a, b) => a - b)) {
    const rows = levels.get(depth)!.map(([, p]) => ({
      parent_id: p.parentKey === null ? null : ids.get(p.parentKey)!,
      name: p.name,
      path_key: p.pathKey,
      depth: p.depth,
      sort_order: p.sortOrder + (p.parentKey === null ? rootOffset : 0),
    }));
    const inserted = await em.execute<{ id: number; path_key: string }[]>(
      `insert into categories (team_id, brand_id, parent_id, name, path_key, depth, sort_order)
       select ?, ?, parent_id, name, path_key, depth, sort_order
         from jsonb_to_recordset(?::jsonb) as t(parent_id int, name text, path_key text, depth int, sort_order int)
       returning id, path_key`,
      [scope.teamId, scope.brandId, JSON.stringify(rows)],
    );
    const idByPath = new Map(inserted.map((r) => [r.path_key, r.id]));
    for (const [key, p] of levels.get(depth)!) ids.set(key, idByPath.get(p.pathKey)!);
  }
  return ids;
}

/**
 * A tree of `count` nodes exactly `depth` levels deep: `roots` roots, then each level's nodes
 * spread round-robin over the previous level's nodes, so every level below the first holds
 * about (count - roots) / (depth - 1) nodes.
 */
export function layeredTree(count: number, depth: number, roots: number, prefix = 'n'): SeedNode[] {
  const nodes: SeedNode[] = [];
  let previous: string[] = [];
  const perLevel = Math.floor((count - roots) / (depth - 1));
  for (let level = 1; level <= depth; level++) {
    const size = level === 1 ? roots : level === depth ? count - roots - perLevel * (depth - 2) : perLevel;
    const current: string[] = [];
    for (let i = 0; i < size; i++) {
      const key = `${prefix}${level}_${i}`;
      nodes.push({ key, parentKey: level === 1 ? null : previous[i % previous.length]!, name: key });
      current.push(key);
    }
    previous = current;
  }
  return nodes;
}
