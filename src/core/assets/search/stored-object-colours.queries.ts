import type { UnitOfWork } from '../../platform/ctx.ts';
import { queryRows } from '../../platform/sql.ts';
import type { PaletteColour } from './colour.ts';

/*
 * Statements writing stored objects' palettes (stored_object_colours, colour search in
 * docs/search.md). Searches read them through the conditions of search.queries.ts and
 * facets.queries.ts; a purged object's palette goes with it (a foreign key on delete cascade).
 */

/** Stores an object's palette once; a second import of the same bytes finds it already there. */
export async function storePalette(tx: UnitOfWork, teamId: number, objectId: number, palette: readonly PaletteColour[]): Promise<void> {
  if (palette.length === 0) return;
  await queryRows(
    tx,
    `insert into stored_object_colours (object_id, position, team_id, l, a, b, rgb, share)
     select ?, ord - 1, ?, (c->>'l')::real, (c->>'a')::real, (c->>'b')::real, c->>'rgb', (c->>'share')::real
       from jsonb_array_elements(?::jsonb) with ordinality as e(c, ord)
     on conflict (object_id, position) do nothing`,
    [objectId, teamId, JSON.stringify(palette)],
  );
}
