import { describe, expect, it } from 'vitest';
import { planSearch } from '../../src/core/assets/search/asset-search.service.ts';
import { MAX_FOLDER_BRANCHES, searchStatements } from '../../src/core/assets/search/search-statements.ts';

const branchesOf = (sql: string) => sql.split('union all').length;

describe('search statements: page shapes (docs/search.md)', () => {
  it('pages a small parentId subtree in creation order with one ordered branch per folder', () => {
    const plan = planSearch({ parentId: 5, startPoint: 40, endPoint: 50 });
    const { page, count } = searchStatements(1, plan, { subtreeFolderIds: [5, 6, 7] });
    expect(branchesOf(page.sql)).toBe(3);
    expect(page.sql).toContain('f.folder_id = ?');
    // each branch stops after startPoint + page size rows
    expect(page.params.filter((p) => p === 50)).toHaveLength(3);
    // the count still covers the whole subtree through the folder paths
    expect(count.sql).toContain('path_ids @>');
  });

  it('walks the sort index instead for a large subtree, another sort, or no resolved folders', () => {
    const many = Array.from({ length: MAX_FOLDER_BRANCHES + 1 }, (_, i) => i + 1);
    expect(searchStatements(1, planSearch({ parentId: 1 }), { subtreeFolderIds: many }).page.sql).not.toContain('union all');
    expect(searchStatements(1, planSearch({ parentId: 1, sort: { sortName: 'NAME' } }), { subtreeFolderIds: [1, 2] }).page.sql).not.toContain('union all');
    expect(searchStatements(1, planSearch({ parentId: 1 }), {}).page.sql).not.toContain('union all');
  });
});
