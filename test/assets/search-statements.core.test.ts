import { describe, expect, it } from 'vitest';
import { planSearch } from '../../src/core/assets/search/asset-search.service.ts';
import { COLLECT_MAX_MATCHES, MAX_FOLDER_BRANCHES, pageSql, searchStatements } from '../../src/core/assets/search/search-pages.queries.ts';

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

  it("takes a subtree's folders as one array in statements that read every match (the count, a collected page), but with DEEP keywords", () => {
    const plan = planSearch({ parentId: 5, tags: [1, 2], sort: { sortName: 'NAME' } });
    const asArray = 'f.folder_id = any(array(select d.id from library_folders d';
    const joined = 'f.folder_id in (select d.id from library_folders d';
    expect(searchStatements(1, plan).count.sql).toContain(asArray);
    expect(searchStatements(1, plan, {}, COLLECT_MAX_MATCHES).page.sql).toContain(asArray);
    // a page that walks a sort index keeps the join: the planner underestimates the array's matches
    expect(searchStatements(1, plan).page.sql).toContain(joined);
    const keywords = searchStatements(1, planSearch({ parentId: 5, keywords: ['sun'], extensions: ['png'] }), {}, COLLECT_MAX_MATCHES);
    expect(keywords.count.sql).toContain(joined);
    expect(keywords.page.sql).toContain(joined);
  });

  it('walks the sort index instead for a large subtree, another sort, or no resolved folders', () => {
    const many = Array.from({ length: MAX_FOLDER_BRANCHES + 1 }, (_, i) => i + 1);
    expect(searchStatements(1, planSearch({ parentId: 1 }), { subtreeFolderIds: many }).page.sql).not.toContain('union all');
    expect(searchStatements(1, planSearch({ parentId: 1, sort: { sortName: 'NAME' } }), { subtreeFolderIds: [1, 2] }).page.sql).not.toContain('union all');
    expect(searchStatements(1, planSearch({ parentId: 1 }), {}).page.sql).not.toContain('union all');
  });

  it('collects and sorts every match when the memo knows there are at most COLLECT_MAX_MATCHES, else leaves the walk to the planner', () => {
    const plan = planSearch({ tags: [3, 4], startPoint: 40, endPoint: 50 });
    const collected = searchStatements(1, plan, {}, COLLECT_MAX_MATCHES).page;
    expect(collected.sql).toContain('with m as materialized');
    expect(collected.sql).toContain('f.tag_ids @> ?::int[]');
    for (const knownTotal of [undefined, COLLECT_MAX_MATCHES + 1]) {
      expect(searchStatements(1, plan, {}, knownTotal).page.sql).not.toContain('with m as materialized');
    }
    // the same parameters either way: only the shape differs
    expect(collected.params).toEqual(searchStatements(1, plan, {}).page.params);
  });

  it('pages a DEEP-only keyword search in creation order from library_search_texts alone: collecting when few match, walking when many, else as planned', () => {
    const plan = planSearch({ keywords: ['sun'] });
    const planned = searchStatements(1, plan).page;
    expect(planned.sql).toBe(
      'select s.file_id as id from library_search_texts s where s.team_id = ? and s.search_text like ? order by s.created_at desc, s.file_id desc limit ? offset ?',
    );
    expect(planned.preparable).toBe(false);
    expect(searchStatements(1, plan, {}, 10).page.sql).toContain('with m as materialized (select s.file_id, s.created_at from library_search_texts s');
    // many known matches: containment by strpos, which the planner cannot take for a few rows
    const walked = searchStatements(1, planSearch({ keywords: ['sun', '50%'] }), {}, COLLECT_MAX_MATCHES + 1).page;
    expect(walked.sql).toBe(
      'select s.file_id as id from library_search_texts s where s.team_id = ? and least(strpos(s.search_text, ?), strpos(s.search_text, ?)) > 0 order by s.created_at desc, s.file_id desc limit ? offset ?',
    );
    expect(walked.params).toEqual([1, '50%', 'sun', 10, 0]);
    expect(walked.preparable).toBe(true);
    // another sort, or another filter, pages over library_files
    expect(searchStatements(1, planSearch({ keywords: ['sun'], sort: { sortName: 'NAME' } })).page.sql).not.toContain('select s.file_id as id');
    expect(searchStatements(1, planSearch({ keywords: ['sun'], extensions: ['png'] })).page.sql).not.toContain('select s.file_id as id');
  });

  it('walks the search texts in creation order and reads their files for DEEP keywords with other filters, once many matches are known', () => {
    const plan = planSearch({ keywords: ['sun'], extensions: ['png'], startPoint: 40, endPoint: 50 });
    const walked = searchStatements(1, plan, {}, COLLECT_MAX_MATCHES + 1).page;
    expect(walked.sql).toMatch(
      /^select s\.file_id as id from library_search_texts s join library_files f on f\.id = s\.file_id\s+where s\.team_id = \? and least\(strpos\(s\.search_text, \?\)\) > 0 and f\.team_id = \? and f\.deleted_at is null\s+and f\.extension = any\(\?::text\[\]\)\s+order by s\.created_at desc, s\.file_id desc limit \? offset \?$/,
    );
    expect(walked.params).toEqual([1, 'sun', 1, '{"png"}', 10, 40]);
    // not known yet, or few: the general statement on library_files
    for (const knownTotal of [undefined, COLLECT_MAX_MATCHES]) {
      expect(searchStatements(1, plan, {}, knownTotal).page.sql).not.toContain('join library_files f');
    }
    // another sort or another keyword mode: the general statement too
    expect(
      searchStatements(1, planSearch({ keywords: ['sun'], extensions: ['png'], sort: { sortName: 'NAME' } }), {}, COLLECT_MAX_MATCHES + 1).page.sql,
    ).not.toContain('join library_files f');
    expect(
      searchStatements(1, planSearch({ keywords: ['sun'], keywordSearchType: 'DEFAULT', extensions: ['png'] }), {}, COLLECT_MAX_MATCHES + 1).page.sql,
    ).not.toContain('join library_files f');
  });

  it("pages an AND of tags in creation order from the walked tag's postings, as a named prepared statement, and counts there too", () => {
    const plan = planSearch({ tags: [4, 3], startPoint: 40, endPoint: 50 });
    // even when the memo knows the total: the walk stops at the page's end, collecting would read every posting
    const { page, count } = searchStatements(1, plan, { walkTag: 4 }, COLLECT_MAX_MATCHES);
    expect(page.sql).toBe(
      'select p.file_id as id from library_tag_postings p where p.team_id = ? and p.tag_id = ? and p.tag_ids @> ?::int[] order by p.created_at desc, p.file_id desc limit ? offset ?',
    );
    expect(page.params).toEqual([1, 4, '{3,4}', 10, 40]);
    expect(page.preparable).toBe(true);
    expect(pageSql(page).name).toMatch(/^search\.page\./);
    expect(count.sql).toBe('select count(*)::float8 as n from library_tag_postings p where p.team_id = ? and p.tag_id = ? and p.tag_ids @> ?::int[]');
    // a single tag, AND or OR alike, needs no containment test
    for (const tagOrAnd of [true, false]) {
      const single = searchStatements(1, planSearch({ tags: [3], tagOrAnd, sort: { sortName: 'CREATE_TIME', sortType: 'ASC' } }), { walkTag: 3 });
      expect(single.page.sql).toBe(
        'select p.file_id as id from library_tag_postings p where p.team_id = ? and p.tag_id = ? order by p.created_at asc, p.file_id asc limit ? offset ?',
      );
      expect(single.count.sql).toBe('select count(*)::float8 as n from library_tag_postings p where p.team_id = ? and p.tag_id = ?');
    }
  });

  it('keeps other tags searches on library_files: another sort pages there (its count stays on the postings), an OR of tags or another filter does both there', () => {
    const sorted = searchStatements(1, planSearch({ tags: [3, 4], sort: { sortName: 'NAME' } }), { walkTag: 4 });
    expect(sorted.page.sql).toContain('from library_files f');
    expect(sorted.count.sql).toContain('from library_tag_postings p');
    for (const body of [
      { tags: [3, 4], tagOrAnd: false },
      { tags: [3, 4], extensions: ['png'] },
    ]) {
      const { page, count } = searchStatements(1, planSearch(body), { walkTag: 4 });
      expect(page.sql).not.toContain('library_tag_postings');
      expect(count.sql).not.toContain('library_tag_postings');
    }
  });

  it("walks the rarest tag's postings and reads their files for an AND of tags with other filters, once many matches are known", () => {
    const plan = planSearch({ tags: [3, 4], extensions: ['png'], startPoint: 40, endPoint: 50 });
    const { page, count } = searchStatements(1, plan, { walkTag: 4 }, COLLECT_MAX_MATCHES + 1);
    expect(page.sql).toMatch(
      /^select p\.file_id as id from library_tag_postings p join library_files f on f\.id = p\.file_id\s+where p\.team_id = \? and p\.tag_id = \? and p\.tag_ids @> \?::int\[\] and f\.team_id = \? and f\.deleted_at is null\s+and f\.extension = any\(\?::text\[\]\)\s+order by p\.created_at desc, p\.file_id desc limit \? offset \?$/,
    );
    expect(page.params).toEqual([1, 4, '{3,4}', 1, '{"png"}', 10, 40]);
    expect(count.sql).not.toContain('library_tag_postings');
    // DEEP keywords too: the texts are walked instead
    expect(searchStatements(1, planSearch({ tags: [3, 4], keywords: ['sun'] }), { walkTag: 4 }, COLLECT_MAX_MATCHES + 1).page.sql).toContain(
      'from library_search_texts s join library_files f',
    );
    // an OR of tags, another sort, or a total not known or small: the general statement
    expect(searchStatements(1, planSearch({ tags: [3, 4], tagOrAnd: false, extensions: ['png'] }), {}, COLLECT_MAX_MATCHES + 1).page.sql).not.toContain(
      'library_tag_postings',
    );
    expect(
      searchStatements(1, planSearch({ tags: [3, 4], extensions: ['png'], sort: { sortName: 'SIZE' } }), { walkTag: 4 }, COLLECT_MAX_MATCHES + 1).page.sql,
    ).not.toContain('library_tag_postings');
    for (const knownTotal of [undefined, COLLECT_MAX_MATCHES]) {
      expect(searchStatements(1, plan, { walkTag: 4 }, knownTotal).page.sql).not.toContain('library_tag_postings');
    }
  });

  it('runs a branched page whose plan does not depend on its values as a named prepared statement, every other page unnamed', () => {
    const folders = searchStatements(1, planSearch({ parentId: 5 }), { subtreeFolderIds: [5, 6, 7] }).page;
    const sizes = searchStatements(1, planSearch({ extensions: ['png', 'jpg'], minSize: 10, sort: { sortName: 'SIZE' } })).page;
    expect([folders.preparable, sizes.preparable]).toEqual([true, true]);
    expect(pageSql(folders).name).toMatch(/^search\.page\.[0-9a-f]{24}$/);
    // equal shapes share a name, other shapes (here: other folders, same count) too; another branch count does not
    expect(pageSql(searchStatements(1, planSearch({ parentId: 8 }), { subtreeFolderIds: [8, 9, 10] }).page).name).toBe(pageSql(folders).name);
    expect(pageSql(searchStatements(1, planSearch({ parentId: 8 }), { subtreeFolderIds: [8, 9] }).page).name).not.toBe(pageSql(folders).name);
    // other filters in the branches, or another shape: planned for their values every time
    const tagged = searchStatements(1, planSearch({ parentId: 5, tags: [1, 2] }), { subtreeFolderIds: [5, 6, 7] }).page;
    const keyword = searchStatements(1, planSearch({ extensions: ['png'], keywords: ['sun'], sort: { sortName: 'SIZE' } })).page;
    const plain = searchStatements(1, planSearch({ tags: [1, 2] })).page;
    for (const page of [tagged, keyword, plain]) {
      expect(page.preparable).toBe(false);
      expect(pageSql(page).name).toBeUndefined();
    }
  });
});
