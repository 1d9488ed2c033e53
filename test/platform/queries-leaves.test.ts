/**
 * Queries modules are leaves (docs/architecture.md "Where SQL lives"): a `<table-group>.queries.ts`
 * imports the SQL toolkit, row checks, entities, other queries modules and the value lists and
 * views both it and its service use (`*-values.ts`, `*.schemas.ts`), never a module that imports
 * it back, directly or through others. The data layer depends on nothing above it.
 */
import { describe, expect, it } from 'vitest';
import { importGraph, importPath } from '../support/import-graph.ts';

describe('queries modules', () => {
  it('a queries module imports nothing that imports it back, directly or through other modules', () => {
    const graph = importGraph(['src', 'workers']);
    const queries = [...graph.keys()].filter((file) => file.endsWith('.queries.ts'));
    expect(queries.length).toBeGreaterThan(40);
    const circles: string[] = [];
    for (const file of queries) {
      for (const edge of graph.get(file)!) {
        const back = importPath(graph, edge.to, file);
        if (back) circles.push(`${file}:${edge.line} imports ${back.join(' -> ')}`);
      }
    }
    expect(
      circles,
      'move the values and views both sides use into a *-values.ts or *.schemas.ts module that imports neither (as src/core/approvals/approval-values.ts)',
    ).toEqual([]);
  });
});
