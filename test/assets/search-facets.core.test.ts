import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexToLab, type Lab } from '../../src/core/assets/search/colour.ts';
import { colourFamilySql } from '../../src/core/assets/search/facets.queries.ts';
import { colourFamilyOf } from '../../src/core/assets/search/facets.ts';
import { createTestEnv, type TestEnv } from '../support/env.ts';

/*
 * The colorFamily facet's rule (docs/search.md "Facets"): one table, read by the SQL the counts
 * run and by colourFamilyOf; both must give every colour the same family.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

/** The family PostgreSQL gives each colour, through the very expression the facet statement uses. */
async function familiesInSql(colours: Lab[]): Promise<string[]> {
  const values = colours.map(() => '(?::int, 1, ?::real, ?::real, ?::real)').join(', ');
  const rows = await env.orm.em.fork().execute<{ family: string }[]>(
    `select ${colourFamilySql()} as family from (values ${values}) as c(i, object_id, l, a, b) order by c.i`,
    colours.flatMap((c, i) => [i, c.l, c.a, c.b]),
  );
  return rows.map((r) => r.family);
}

describe('colour families (colorFamily facet)', () => {
  it('names common colours as a person would', () => {
    const named: Record<string, string> = {
      ff0000: 'red',
      dc143c: 'red',
      ffa500: 'orange',
      '8b4513': 'brown',
      ffff00: 'yellow',
      ffd700: 'yellow',
      '00ff00': 'green',
      '008000': 'green',
      '00ffff': 'cyan',
      '008080': 'cyan',
      '0000ff': 'blue',
      '000080': 'blue',
      '800080': 'purple',
      ff00ff: 'purple',
      ffc0cb: 'pink',
      ff69b4: 'pink',
      ffffff: 'white',
      f5f5f5: 'white',
      '808080': 'grey',
      '000000': 'black',
      '202020': 'black',
    };
    for (const [hex, family] of Object.entries(named)) expect(colourFamilyOf(hexToLab(hex)), hex).toBe(family);
  });

  it('gives every colour the same family in SQL as in TypeScript (a grid over L, a, b)', async () => {
    const grid: Lab[] = [];
    for (let l = 2; l <= 98; l += 12) for (let a = -100; a <= 100; a += 9) for (let b = -100; b <= 100; b += 9) grid.push({ l, a, b });
    // hue boundaries and the neutral and lightness edges, where a rounding difference would show
    for (const hue of [0, 19.9, 20, 50, 80, 115, 170, 240, 315, 345, 359.9]) {
      const rad = (hue * Math.PI) / 180;
      for (const l of [24.9, 25, 49.9, 50, 84.9, 85])
        grid.push({ l, a: 40 * Math.cos(rad), b: 40 * Math.sin(rad) }, { l, a: 11.9 * Math.cos(rad), b: 11.9 * Math.sin(rad) });
    }
    const batch = 2000;
    for (let i = 0; i < grid.length; i += batch) {
      const colours = grid.slice(i, i + batch);
      const sql = await familiesInSql(colours);
      // compare on the values PostgreSQL stores: real, as stored_object_colours keeps them
      const ts = colours.map((c) => colourFamilyOf({ l: Math.fround(c.l), a: Math.fround(c.a), b: Math.fround(c.b) }));
      expect(sql).toEqual(ts);
    }
  });
});
