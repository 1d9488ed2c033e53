import type { FieldIssue } from '../../platform/errors.ts';
import type { Lab } from './colour.ts';

/**
 * Facet counts of asset search (docs/search.md "Facets"): next to a page, how many of the
 * search's matches carry each value of a property. Opt-in: only a request naming `facets` gets
 * them, so a client that follows the spec alone sees exactly the spec's answer.
 */

/** The facets every library has; custom fields of type select add `customField:<id>`. */
export const BUILTIN_FACETS = ['extension', 'type', 'orientation', 'tags', 'colorFamily', 'folder', 'validity'] as const;
export type BuiltinFacet = (typeof BUILTIN_FACETS)[number];

export const FACET_LIMITS = {
  /** Facets per request: each is one grouped statement over every match when not memoized. */
  facets: 8,
  /** Values listed per facet (`facetLimit`), the rest summed in `other`. */
  maxValues: 50,
  defaultValues: 10,
} as const;

/** A facet asked for: a built-in one, or the select options of one custom field. */
export type FacetSpec = { name: BuiltinFacet } | { name: 'customField'; fieldId: number };

/** The facets of a search: which (in request order) and how many values each lists. */
export interface FacetPlan {
  facets: FacetSpec[];
  limit: number;
}

/** One value of a facet and how many matches carry it. */
export interface FacetValue {
  /** The value as text: an extension, a type, a tag or folder id, an option. */
  value: string;
  /** The tag's or folder's name; null for the other facets. */
  label: string | null;
  count: number;
}

/** What a search answers for one facet. */
export interface FacetResult {
  /** The facet as it was asked for: `extension`, ..., `customField:12`. */
  facet: string;
  /** At most `facetLimit` values, most matches first, ties by value (as text, ascending). */
  values: FacetValue[];
  /** The matches counted under the values not listed (for tags: tag assignments, below). */
  other: number;
  /** How many values are not listed. */
  otherValues: number;
  /** Matches without a value: no extension, no tag, at the library root, no palette, no dimensions, no value of the field. */
  missing: number;
}

/** The counts of one facet as they are computed and memoized: values without labels (labels are read fresh). */
export interface FacetCounts {
  values: Array<{ value: string; count: number }>;
  other: number;
  otherValues: number;
  missing: number;
}

const CUSTOM_FIELD = /^customField:([1-9][0-9]{0,9})$/;

/** The name a facet is asked for and answered under. */
export function facetName(spec: FacetSpec): string {
  return spec.name === 'customField' ? `customField:${spec.fieldId}` : spec.name;
}

/**
 * The facets of a request (`facets`, `facetLimit`), schema-checked already; problems are added
 * to `issues` naming `facets[i]`. null when no facet is asked (an empty list included): the
 * answer then carries no `facets` field.
 */
export function facetPlanOf(issues: FieldIssue[], names: string[] | null | undefined, limit: number | null | undefined, maxFieldId: number): FacetPlan | null {
  if (names === undefined || names === null || names.length === 0) {
    if (limit !== undefined && limit !== null) issues.push({ field: 'facetLimit', message: 'is allowed only with facets' });
    return null;
  }
  const facets: FacetSpec[] = [];
  const seen = new Set<string>();
  names.forEach((raw, index) => {
    const field = `facets[${index}]`;
    const name = raw.trim();
    const custom = CUSTOM_FIELD.exec(name);
    let spec: FacetSpec | null = null;
    if ((BUILTIN_FACETS as readonly string[]).includes(name)) spec = { name: name as BuiltinFacet };
    else if (custom && Number(custom[1]) <= maxFieldId) spec = { name: 'customField', fieldId: Number(custom[1]) };
    if (!spec) {
      issues.push({ field, message: `is not a facet: one of ${BUILTIN_FACETS.join(', ')}, or customField:<id of a select custom field>` });
      return;
    }
    if (seen.has(facetName(spec))) {
      issues.push({ field, message: `asks for ${facetName(spec)} a second time` });
      return;
    }
    seen.add(facetName(spec));
    facets.push(spec);
  });
  return { facets, limit: limit ?? FACET_LIMITS.defaultValues };
}

/**
 * Colour families (the `colorFamily` facet): an image's family is that of its palette's largest
 * colour (position 0), by CIELAB chroma, lightness and hue angle. Colours of chroma under 12 are
 * white (L >= 85), black (L < 25) or grey; the others by hue, with brown the dark (L < 50)
 * oranges. One table, read by the SQL (facets.queries.ts) and by colourFamilyOf (tests, docs).
 */
export const COLOUR_FAMILY_RULES = {
  neutralChroma: 12,
  whiteFromL: 85,
  blackBelowL: 25,
  brownBelowL: 50,
  /** Hue ranges [from, to) in degrees; 345-360 wraps into pink. */
  hues: [
    { family: 'pink', from: 0, to: 20 },
    { family: 'red', from: 20, to: 50 },
    { family: 'orange', from: 50, to: 80 },
    { family: 'yellow', from: 80, to: 115 },
    { family: 'green', from: 115, to: 170 },
    { family: 'cyan', from: 170, to: 240 },
    { family: 'blue', from: 240, to: 315 },
    { family: 'purple', from: 315, to: 345 },
    { family: 'pink', from: 345, to: 360 },
  ],
} as const;

/** The family of one colour (COLOUR_FAMILY_RULES). */
export function colourFamilyOf(lab: Lab): string {
  const r = COLOUR_FAMILY_RULES;
  if (Math.hypot(lab.a, lab.b) < r.neutralChroma) return lab.l >= r.whiteFromL ? 'white' : lab.l < r.blackBelowL ? 'black' : 'grey';
  const hue = ((Math.atan2(lab.b, lab.a) * 180) / Math.PI + 360) % 360;
  const family = r.hues.find((h) => hue >= h.from && hue < h.to)!.family;
  return family === 'orange' && lab.l < r.brownBelowL ? 'brown' : family;
}

/** File types (the `type` facet) by MIME type, as events name a material's type (MATERIAL_DELETED materialType). */
export const FILE_TYPES = ['IMAGE', 'VIDEO', 'AUDIO', 'DOCUMENT', 'OTHER'] as const;
/** Orientations (the `orientation` facet) of files with a width and a height. */
export const ORIENTATIONS = ['LANDSCAPE', 'PORTRAIT', 'SQUARE'] as const;
/** Validity statuses (the `validity` facet), as stored (docs/library.md "Validity"). */
export const VALIDITY_STATUSES = ['VALID', 'NOT_STARTED', 'EXPIRED'] as const;
