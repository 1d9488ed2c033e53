import { queryRows } from '../../platform/sql.ts';
import type { UnitOfWork } from '../../platform/ctx.ts';
import { extractPalette, type PaletteColour } from './colour.ts';

/** Whether a palette is computed for content: images whose dimensions sharp could read at import. */
export function hasPalette(facts: { mimeType: string; width: number | null }): boolean {
  return facts.mimeType.startsWith('image/') && facts.width !== null;
}

/** The palette of a file about to be imported (colour search, docs/search.md); [] for anything else. */
export async function paletteForImport(path: string, facts: { mimeType: string; width: number | null }): Promise<PaletteColour[]> {
  return hasPalette(facts) ? extractPalette(path) : [];
}

/** Stores an object's palette once; a second import of the same bytes finds it already there. */
export async function storePalette(tx: UnitOfWork, teamId: number, objectId: number, palette: PaletteColour[]): Promise<void> {
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
