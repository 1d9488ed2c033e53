import { extractPalette, type PaletteColour } from './colour.ts';

/** Whether a palette is computed for content: images whose dimensions sharp could read at import. */
export function hasPalette(facts: { mimeType: string; width: number | null }): boolean {
  return facts.mimeType.startsWith('image/') && facts.width !== null;
}

/** The palette of a file about to be imported (colour search, docs/search.md); [] for anything else. */
export async function paletteForImport(path: string | Buffer, facts: { mimeType: string; width: number | null }): Promise<PaletteColour[]> {
  return hasPalette(facts) ? extractPalette(path) : [];
}
