import { type FieldIssue, invalidFields } from '../../platform/errors.ts';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';
import type { DerivativeRequest } from '../delivery/derivatives.ts';
import { hexToLab, type Lab } from './colour.ts';
import { type FacetPlan, facetPlanOf } from './facets.ts';
import { type KeywordSearchType, SEARCH_LIMITS, type SearchAssetsRequest, type SortName } from './search.schemas.ts';

/** An inclusive range; either end may be open. */
export interface Range {
  min?: number;
  max?: number;
}

/**
 * What decides which assets match, normalised (trimmed, lower-cased, sorted, deduplicated) so
 * that equal searches have equal filters: the memo of totals is keyed by its JSON.
 */
export interface SearchFilter {
  parentId?: number;
  extensions?: string[];
  colour?: { lab: Lab; maxDistance: number; minShare: number };
  durationMs?: Range;
  sizeBytes?: Range;
  width?: Range;
  height?: Range;
  updatedMs?: Range;
  keywords?: { mode: KeywordSearchType; values: string[] };
  tags?: { ids: number[]; all: boolean };
  createUsers?: number[];
  ratings?: number[];
  hasLink?: boolean;
  hasDesc?: boolean;
  linkContains?: string;
  descContains?: string;
  /** Files carrying a value of any of these custom field templates (ids of other teams match nothing). */
  customFieldTemplateIds?: number[];
  /** Files having a value for this custom field. */
  customFieldId?: number;
  currentUserId?: number;
}

export interface SearchOrder {
  name: SortName;
  direction: 'ASC' | 'DESC';
}

export interface SearchPage {
  offset: number;
  limit: number;
}

/** A validated search-assets request, split into what matches, how it is ordered and paged, and the publicUrl recipe. */
export interface AssetSearchPlan {
  filter: SearchFilter;
  order: SearchOrder;
  page: SearchPage;
  needChildren: boolean;
  /** null when no processing parameter was given: publicUrl is then "". */
  derivative: DerivativeRequest | null;
  /** The facets to count next to the page; null when none was asked (docs/search.md "Facets"). */
  facets: FacetPlan | null;
}

/** Spec 4.6 defaults: areaThreshold 20, colorThreshold 20, startPoint 0, endPoint 10, DEEP keywords, tags AND. */
export const SEARCH_DEFAULTS = { areaThreshold: 20, colorThreshold: 20, startPoint: 0, endPoint: 10, shareEndPoint: 40 } as const;

const sortedUnique = <T extends number | string>(values: T[]): T[] => [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const given = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

/** Collects cross-field problems so a request reports all of them at once. */
class Issues {
  readonly list: FieldIssue[] = [];
  add(field: string, message: string): void {
    this.list.push({ field, message });
  }
  throwIfAny(): void {
    if (this.list.length > 0) throw invalidFields(this.list);
  }
}

function range(issues: Issues, minField: string, maxField: string, min: number | null | undefined, max: number | null | undefined): Range | undefined {
  if (!given(min) && !given(max)) return undefined;
  if (given(min) && given(max) && min > max) issues.add(maxField, `must not be less than ${minField}`);
  return { ...(given(min) ? { min } : {}), ...(given(max) ? { max } : {}) };
}

/**
 * startPoint/endPoint: the results from index startPoint (default 0) up to, not including, endPoint
 * (default startPoint + `defaultSize`, so 10 or 40 from the start); at most 100 apart.
 */
export function pageOf(issues: Issues, startPoint: number | null | undefined, endPoint: number | null | undefined, defaultSize: number): SearchPage {
  const start = startPoint ?? 0;
  const end = endPoint ?? start + defaultSize;
  if (end < start) issues.add('endPoint', 'must not be less than startPoint');
  if (end - start > SEARCH_LIMITS.pageSize) {
    issues.add(
      'endPoint',
      `may be at most ${SEARCH_LIMITS.pageSize} more than startPoint (${start}): a request returns at most ${SEARCH_LIMITS.pageSize} results; ask for [${start}, ${start + SEARCH_LIMITS.pageSize}) and continue from there`,
    );
  }
  return { offset: start, limit: Math.max(0, end - start) };
}

function keywordsOf(issues: Issues, body: SearchAssetsRequest): SearchFilter['keywords'] {
  if (!given(body.keywords) || body.keywords.length === 0) return undefined;
  const values: string[] = [];
  body.keywords.forEach((raw, index) => {
    const value = raw.trim().toLowerCase();
    if (value.length === 0) issues.add(`keywords[${index}]`, 'must not be blank');
    else if (/[\u0000-\u001f\u007f]/.test(value)) issues.add(`keywords[${index}]`, 'must not contain control characters');
    else values.push(value);
  });
  return values.length > 0 ? { mode: body.keywordSearchType ?? 'DEEP', values: sortedUnique(values) } : undefined;
}

function extensionsOf(issues: Issues, extensions: string[] | null | undefined): string[] | undefined {
  if (!given(extensions) || extensions.length === 0) return undefined;
  const values = extensions.map((raw, index) => {
    const value = raw.trim().toLowerCase().replace(/^\./, '');
    if (!/^[a-z0-9]{1,32}$/.test(value)) issues.add(`extensions[${index}]`, 'must be 1-32 letters or digits, optionally after a dot');
    return value;
  });
  return sortedUnique(values);
}

function textOf(issues: Issues, field: string, value: string | null | undefined): string | undefined {
  if (!given(value)) return undefined;
  const trimmed = value.trim().toLowerCase();
  if (trimmed.length === 0) issues.add(field, 'must not be blank');
  return trimmed;
}

function derivativeOf(body: SearchAssetsRequest): DerivativeRequest | null {
  const request: DerivativeRequest = {};
  if (given(body.w)) request.w = body.w;
  if (given(body.h)) request.h = body.h;
  if (given(body.mode)) request.mode = body.mode;
  if (given(body.q)) request.q = body.q;
  if (given(body.f)) request.f = body.f;
  if (given(body.bg)) request.bg = body.bg.toLowerCase();
  return Object.keys(request).length > 0 ? request : null;
}

/** The filter of a search-assets body (schema-checked already); cross-field rules give validation_failed. */
export function planAssetSearch(body: SearchAssetsRequest): AssetSearchPlan {
  const issues = new Issues();
  const filter: SearchFilter = {};
  if (given(body.parentId)) filter.parentId = body.parentId;
  const extensions = extensionsOf(issues, body.extensions);
  if (extensions) filter.extensions = extensions;
  if (given(body.color)) {
    filter.colour = {
      lab: hexToLab(body.color),
      maxDistance: body.colorThreshold ?? SEARCH_DEFAULTS.colorThreshold,
      minShare: body.areaThreshold ?? SEARCH_DEFAULTS.areaThreshold,
    };
  }
  const ranges = {
    durationMs: range(issues, 'minLength', 'maxLength', body.minLength, body.maxLength),
    sizeBytes: range(issues, 'minSize', 'maxSize', body.minSize, body.maxSize),
    width: range(issues, 'minWidth', 'maxWidth', body.minWidth, body.maxWidth),
    height: range(issues, 'minHeight', 'maxHeight', body.minHeight, body.maxHeight),
    updatedMs: range(issues, 'startTime', 'endTime', body.startTime, body.endTime),
  };
  for (const [key, value] of Object.entries(ranges)) if (value) filter[key as keyof typeof ranges] = value;
  const keywords = keywordsOf(issues, body);
  if (keywords) filter.keywords = keywords;
  if (given(body.tags) && body.tags.length > 0) filter.tags = { ids: sortedUnique(body.tags), all: body.tagOrAnd ?? true };
  if (given(body.createUsers) && body.createUsers.length > 0) filter.createUsers = sortedUnique(body.createUsers);
  if (given(body.ratings) && body.ratings.length > 0) filter.ratings = sortedUnique(body.ratings);
  if (given(body.hasLink)) filter.hasLink = body.hasLink;
  if (given(body.hasDesc)) filter.hasDesc = body.hasDesc;
  const link = textOf(issues, 'link', body.link);
  if (link) filter.linkContains = link;
  const desc = textOf(issues, 'desc', body.desc);
  if (desc) filter.descContains = desc;
  if (given(body.customFieldTemplateIds) && body.customFieldTemplateIds.length > 0) filter.customFieldTemplateIds = sortedUnique(body.customFieldTemplateIds);
  if (given(body.customFieldId)) filter.customFieldId = body.customFieldId;
  if (given(body.currentUserId)) filter.currentUserId = body.currentUserId;
  const page = pageOf(issues, body.startPoint, body.endPoint, SEARCH_DEFAULTS.endPoint);
  const facets = facetPlanOf(issues.list, body.facets, body.facetLimit, MAX_RESOURCE_ID);
  issues.throwIfAny();
  return {
    filter,
    order: { name: body.sort?.sortName ?? 'CREATE_TIME', direction: body.sort?.sortType ?? 'DESC' },
    page,
    needChildren: body.needChildren ?? false,
    derivative: derivativeOf(body),
    facets,
  };
}

export { Issues };
