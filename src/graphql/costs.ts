import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../core/platform/pagination.ts';

/*
 * The cost model's multipliers (query-cost.ts, docs/graphql.md "Limits"), declared on the fields
 * through @pothos/plugin-complexity's `complexity` option. A page counts its page size; a list
 * without a page argument counts the bound its field description states.
 */

/** A whole number argument as the multiplier it asks for: absent or not a number gives the default, at most `max`. */
export function sizeOf(value: unknown, fallback: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(Math.max(Math.trunc(value), 0), max);
}

/** A field returning an ordinary page: its selection counts `pageSize` times (default 20, at most 100, as the core caps it). */
export function pageCost(args: { pageSize?: number | null }) {
  return { field: 1, multiplier: sizeOf(args.pageSize, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE) };
}

/**
 * A page that a cursor continues (productSync): counted `pageSize` times when it is sent; a
 * continuation without it keeps the cursor's page size, which the cost model does not open, so it
 * counts the largest (100); a first page without it counts the default (20).
 */
export function cursorPageCost(args: { pageSize?: number | null; cursor?: string | null }) {
  const fallback = typeof args.cursor === 'string' ? MAX_PAGE_SIZE : DEFAULT_PAGE_SIZE;
  return { field: 1, multiplier: sizeOf(args.pageSize, fallback, MAX_PAGE_SIZE) };
}

/** A list with a stated bound: its items' fields count `bound` times. */
export function listCost(bound: number) {
  return { field: 1, multiplier: bound };
}

/** The items of a page type: the page's field already counted the page size. */
export const PAGE_ITEMS_COST = { field: 1, multiplier: 1 };

/** The text a list field's description ends with: how the cost model counts it. */
export function countedAs(bound: number, why: string): string {
  return `Query cost: counted as ${bound.toLocaleString('en-US')} items (${why}).`;
}

/** The bounds of lists without a page argument; where the data has no hard cap the number is a generous estimate. */
export const LIST_BOUNDS = {
  /** Spec 8: at most 5,000 live categories per brand. */
  categoryTree: 5000,
  /** Spec 8: at most 100 media references per product write. */
  productMedia: 100,
  /** Spec 8: a template definition has at most 200 groups and 200 fields in all. */
  templateGroups: 200,
  /** Template.versions: the `last` argument's default and maximum. */
  templateVersionsDefault: 10,
  templateVersionsMax: 100,
  /** updateLibraryFile: at most 50 tags per file. */
  fileTags: 50,
  /** Folders nest at most 32 levels. */
  folderDepth: 32,
  /** A custom field template has at most 50 fields; a team at most 100 templates, 200 metadata fields. */
  customFieldTemplates: 100,
  customFieldsPerTemplate: 50,
  metadataFields: 200,
  /** Estimates for a file: templates it carries and values of one template or of its metadata. */
  fileTemplatesEstimate: 10,
  fileValuesEstimate: 20,
  /** Approval workflows: at most 50 approvers per node. */
  approversPerNode: 50,
  /** Estimates: lists whose length only the stored data bounds. */
  childFolders: 100,
  teamList: 100,
  endpointSubscriptions: 20,
  deliveryAttempts: 50,
  versionLine: 100,
  /** Recycle bin page: `first` default 50, at most 100. */
  recycleBinDefault: 50,
  /** Search pages: endPoint - startPoint, at most 100 (spec 4.6), default 10 (search-assets) and 40 (search-share). */
  searchPage: 100,
  searchAssetsDefault: 10,
  searchShareDefault: 40,
  /** Ids a visibility check or a pending-inbound confirmation takes (at most 100; counted as sent). */
  idsPerCall: 100,
} as const;
