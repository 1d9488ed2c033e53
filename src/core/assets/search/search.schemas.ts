import { type Static, type TSchema, Type } from 'typebox';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';
import { literalUnion } from '../../platform/schema-shapes.ts';
import { DERIVATIVE_FORMATS, DERIVATIVE_LIMITS, DERIVATIVE_MODES } from '../delivery/derivatives.ts';
import { BUILTIN_FACETS, FACET_LIMITS, type FacetResult } from './facets.ts';

/**
 * Every optional field also accepts null, meaning "not given": clients generated from Java VOs
 * (EnterpriseSearchReqVO) serialise unset fields as null.
 */
const opt = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const id = (description?: string) => Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, ...(description ? { description } : {}) });
const count = (description: string) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });

/** Limits of search requests (docs/search.md); the spec leaves them open except w, h and q. */
export const SEARCH_LIMITS = {
  /** endPoint - startPoint: the largest page. */
  pageSize: 100,
  /** startPoint: offsets cost their length in index entries, so deep paging is bounded. */
  maxStartPoint: 100_000,
  keywords: 10,
  keywordLength: 100,
  extensions: 50,
  tags: 50,
  createUsers: 100,
  customFieldIds: 100,
  regionValues: 16,
} as const;

/**
 * endPoint is bounded by its rule, not by a number of its own: a page is at most 100 results past
 * startPoint, and the core says so in words ("may be at most 100 more than startPoint"). A schema
 * maximum of startPoint's limit plus 100 answered "must be <= 100100", which explains nothing.
 */
const endPoint = (description: string) =>
  Type.Integer({
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description: `${description} A request returns at most ${SEARCH_LIMITS.pageSize} results: endPoint - startPoint <= ${SEARCH_LIMITS.pageSize}, refused beyond (never cut short silently, so the next page's startPoint is this endPoint).`,
  });

export const SORT_NAMES = ['CREATE_TIME', 'UPDATE_TIME', 'NAME', 'DURATION', 'SIZE', 'SCORE'] as const;
export type SortName = (typeof SORT_NAMES)[number];
export const KEYWORD_SEARCH_TYPES = ['DEEP', 'DEFAULT', 'PRECISE', 'DEEP_AND_PRECISE'] as const;
export type KeywordSearchType = (typeof KEYWORD_SEARCH_TYPES)[number];
export const SORT_TYPES = ['ASC', 'DESC'] as const;
export type SortType = (typeof SORT_TYPES)[number];

const HEX_COLOUR = '^#?[0-9a-fA-F]{6}$';

/** spec 4.6 SortConditionVO. */
export const SortCondition = Type.Object(
  {
    sortName: Type.Union(
      [Type.Literal('CREATE_TIME'), Type.Literal('UPDATE_TIME'), Type.Literal('NAME'), Type.Literal('DURATION'), Type.Literal('SIZE'), Type.Literal('SCORE')],
      { description: 'Sort key; the tie-breaker is always the asset id in the same direction.' },
    ),
    sortType: opt(literalUnion(SORT_TYPES, { description: 'Default DESC.' })),
  },
  { additionalProperties: false },
);

/** The processed-image parameters of `publicUrl` (spec 4.6, 8). */
const derivativeFields = {
  w: opt(Type.Integer({ minimum: 1, maximum: DERIVATIVE_LIMITS.maxSide, description: 'Target width in px (1-6000); larger than the original has no effect.' })),
  h: opt(
    Type.Integer({ minimum: 1, maximum: DERIVATIVE_LIMITS.maxSide, description: 'Target height in px (1-6000); larger than the original has no effect.' }),
  ),
  mode: opt(literalUnion(DERIVATIVE_MODES, { description: '`fit` (default): inside w x h keeping the aspect ratio; `crop`: cover w x h, centre crop.' })),
  q: opt(Type.Integer({ minimum: 1, maximum: 100, description: 'Quality 1-100 for jpg and webp (default 80); png is lossless.' })),
  f: opt(literalUnion(DERIVATIVE_FORMATS, { description: "Output format; default: the original's when jpg, png or webp, else webp." })),
  bg: opt(
    Type.String({ pattern: '^[0-9a-fA-F]{6}$', description: 'Background (hex RRGGBB without #) that transparency is flattened onto; jpg defaults to white.' }),
  ),
};

/** spec 4.6 EnterpriseSearchReqVO: every field optional. */
export const SearchAssetsRequest = Type.Object(
  {
    parentId: opt(id('Search inside this folder and its descendants.')),
    needChildren: opt(Type.Boolean({ description: 'Also return the child folders of parentId (or the top-level folders) in `folders`.' })),
    extensions: opt(
      Type.Array(Type.String({ minLength: 1, maxLength: 33 }), {
        maxItems: SEARCH_LIMITS.extensions,
        description: 'Extensions, case-insensitive, with or without the dot.',
      }),
    ),
    color: opt(Type.String({ pattern: HEX_COLOUR, description: 'Colour as hex RRGGBB (with or without #).' })),
    areaThreshold: opt(Type.Integer({ minimum: 1, maximum: 100, description: 'Minimum share of the image (percent) the matching colours cover; default 20.' })),
    colorThreshold: opt(Type.Integer({ minimum: 0, maximum: 100, description: 'Maximum colour distance ΔE*ab (CIE76) counted as the colour; default 20.' })),
    minLength: opt(count('Minimum duration in ms.')),
    maxLength: opt(count('Maximum duration in ms.')),
    minSize: opt(count('Minimum size in bytes.')),
    maxSize: opt(count('Maximum size in bytes.')),
    minHeight: opt(count('Minimum height in px.')),
    maxHeight: opt(count('Maximum height in px.')),
    minWidth: opt(count('Minimum width in px.')),
    maxWidth: opt(count('Maximum width in px.')),
    startTime: opt(count('Update time from (epoch ms, inclusive).')),
    endTime: opt(count('Update time until (epoch ms, inclusive).')),
    keywords: opt(
      Type.Array(Type.String({ minLength: 1, maxLength: SEARCH_LIMITS.keywordLength }), {
        maxItems: SEARCH_LIMITS.keywords,
        description: 'Every keyword must match (AND).',
      }),
    ),
    keywordSearchType: opt(
      Type.Union([Type.Literal('DEEP'), Type.Literal('DEFAULT'), Type.Literal('PRECISE'), Type.Literal('DEEP_AND_PRECISE')], {
        description: 'Default DEEP; docs/search.md gives the semantics.',
      }),
    ),
    tags: opt(Type.Array(id(), { maxItems: SEARCH_LIMITS.tags, description: 'Tag ids.' })),
    tagOrAnd: opt(Type.Boolean({ description: 'true (default): all tags; false: any tag.' })),
    createUsers: opt(Type.Array(id(), { maxItems: SEARCH_LIMITS.createUsers, description: 'Creator member ids.' })),
    ratings: opt(Type.Array(Type.Integer({ minimum: 0, maximum: 5 }), { maxItems: 6, description: 'Ratings 0-5.' })),
    hasLink: opt(Type.Boolean({ description: 'true: only files with a web link; false: only files without one.' })),
    hasDesc: opt(Type.Boolean({ description: 'true: only files with a description; false: only files without one.' })),
    link: opt(Type.String({ minLength: 1, maxLength: 2048, description: 'The web link contains this text (case-insensitive).' })),
    desc: opt(Type.String({ minLength: 1, maxLength: 1024, description: 'The description contains this text (case-insensitive).' })),
    sort: opt({ ...SortCondition, description: 'Sort key and direction; default CREATE_TIME DESC.' }),
    startPoint: opt(Type.Integer({ minimum: 0, maximum: SEARCH_LIMITS.maxStartPoint, description: 'Index of the first result, default 0.' })),
    endPoint: opt(endPoint('Index after the last result, default startPoint + 10.')),
    region: opt(Type.Array(Type.Number(), { maxItems: SEARCH_LIMITS.regionValues, description: 'Accepted and ignored: Shelf has no region index.' })),
    customFieldTemplateIds: opt(
      Type.Array(id(), {
        maxItems: SEARCH_LIMITS.customFieldIds,
        description: 'Custom field template ids: files carrying a value of any of these templates. Ids of another team match nothing.',
      }),
    ),
    customFieldId: opt(id('Custom field id (of a template): files having a value for this custom field. An id of another team matches nothing.')),
    currentUserId: opt(id('Only assets this member may access: own files and files under their folders.')),
    facets: opt(
      Type.Array(Type.String({ minLength: 1, maxLength: 40 }), {
        maxItems: FACET_LIMITS.facets,
        description: `Shelf extension, opt-in: also count the matches per value of these facets (result \`facets\`, docs/search.md "Facets"). Each is one of ${BUILTIN_FACETS.join(', ')}, or customField:<id> for a custom field of type select; at most ${FACET_LIMITS.facets}, each once. Counts are exact, over the same filters as \`total\` (currentUserId included). An unknown facet, or a custom field that is not a select field of the team, is refused naming facets[i] (REST 400 invalid_parameter, GraphQL validation_failed). Omitted, null or []: no \`facets\` in the result.`,
      }),
    ),
    facetLimit: opt(
      Type.Integer({
        minimum: 1,
        maximum: FACET_LIMITS.maxValues,
        description: `With facets: how many values each facet lists, most matches first (1-${FACET_LIMITS.maxValues}, default ${FACET_LIMITS.defaultValues}); the rest are summed in \`other\`. Refused without facets.`,
      }),
    ),
    ...derivativeFields,
  },
  { $id: 'SearchAssetsRequest', additionalProperties: false },
);
export type SearchAssetsRequest = Static<typeof SearchAssetsRequest>;

/** spec 4.6 search-share body. */
export const SearchShareRequest = Type.Object(
  {
    linkToken: Type.String({ minLength: 1, maxLength: 256, description: 'The share token.' }),
    password: opt(Type.String({ maxLength: 256, description: 'Required when the share is password-protected.' })),
    folderId: opt(id('Folder to list: the share root (default) or a folder under it.')),
    needChildren: opt(Type.Boolean({ description: "Also return the folder's child folders." })),
    isRoot: opt(Type.Boolean({ description: 'List the share root; with folderId, folderId must be the root.' })),
    keyword: opt(Type.String({ maxLength: SEARCH_LIMITS.keywordLength, description: 'File (and child folder) names contain this text, case-insensitive.' })),
    startPoint: opt(Type.Integer({ minimum: 0, maximum: SEARCH_LIMITS.maxStartPoint, description: 'Default 0.' })),
    endPoint: opt(endPoint('Index after the last result, default startPoint + 40.')),
  },
  { $id: 'SearchShareRequest', additionalProperties: false },
);
export type SearchShareRequest = Static<typeof SearchShareRequest>;

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const TagDTO = Type.Object({ id: Type.Integer(), name: Type.String() }, { additionalProperties: false });
export type TagDTO = Static<typeof TagDTO>;

export const FolderDTO = Type.Object({ id: Type.Integer(), name: Type.String() }, { $id: 'FolderDTO', additionalProperties: false });
export type FolderDTO = Static<typeof FolderDTO>;

export const ImageContentAnalysis = Type.Object(
  {
    aiTags: nullable(Type.String()),
    aiTitle: nullable(Type.String()),
    aiDescription: nullable(Type.String()),
    aiDetailedDescription: nullable(Type.Array(Type.Unknown(), { description: 'A JSON array.' })),
  },
  { additionalProperties: false },
);
export type ImageContentAnalysis = Static<typeof ImageContentAnalysis>;

/** spec 2.6 AssetItem. */
export const AssetItem = Type.Object(
  {
    id: Type.Integer({ description: 'The file-path ID.' }),
    parentIds: Type.Array(Type.Integer(), { description: "Folder ids from the root down to the file's folder; [] at the root." }),
    userId: nullable(Type.String({ description: "The owner's member id." })),
    name: Type.String({ description: 'The original file name.' }),
    downloadUrl: Type.String({ description: "Signed link to the original; expires after 300 s or the key's expiry." }),
    source: Type.Integer({ description: '1 web, 2 upload, 3 copy.' }),
    link: nullable(Type.String({ description: 'A web page URL recorded for the file.' })),
    extension: nullable(Type.String({ description: 'Lower case, without the dot.' })),
    duration: nullable(Type.Integer({ description: 'Milliseconds.' })),
    size: Type.Integer({ description: 'KB: bytes / 1024, rounded up.' }),
    width: nullable(Type.Integer({ description: 'Pixels; null for non-images.' })),
    height: nullable(Type.Integer({ description: 'Pixels; null for non-images.' })),
    description: nullable(Type.String({ description: 'Free text.' })),
    score: nullable(Type.Integer({ description: 'Rating 0-5.' })),
    createTime: Type.String({ format: 'date-time', description: 'When the file was imported (RFC 3339, UTC, microseconds).' }),
    createUser: nullable(Type.String({ description: "The creating member's id." })),
    updateTime: Type.String({ format: 'date-time', description: 'When the file last changed (RFC 3339, UTC, microseconds).' }),
    updateUser: nullable(Type.Integer({ description: "The last updating member's id." })),
    tags: Type.Array(TagDTO, { description: "The file's tags, ordered by name." }),
    thumbnailAccessUrl: nullable(Type.String({ description: 'Signed preview link (3600 s; 300 s for images shown as their original); null for non-images.' })),
    imageContentAnalysis: nullable({ ...ImageContentAnalysis, description: 'Image analysis fields set by operators or GraphQL; null when none is set.' }),
    publicUrl: Type.String({ description: 'Signed link to the processed image (w/h/mode/q/f/bg); "" without processing parameters or for non-images.' }),
  },
  { $id: 'AssetItem', additionalProperties: false },
);
export type AssetItem = Static<typeof AssetItem>;

export const SearchAssetsResult = Type.Object(
  {
    assets: Type.Array(Type.Ref('AssetItem'), { description: 'The page of matching assets.' }),
    total: Type.Integer({ description: 'Exact number of matching assets.' }),
    folders: Type.Optional(Type.Array(Type.Ref('FolderDTO'), { description: 'With needChildren: the child folders of parentId (or the top-level folders).' })),
    folderCount: Type.Optional(Type.Integer({ description: 'With needChildren: how many folders `folders` holds.' })),
    facets: Type.Optional(
      Type.Array(Type.Ref('SearchFacet'), {
        description: 'Only when the request named `facets`: one entry per facet, in request order (docs/search.md "Facets").',
      }),
    ),
  },
  { $id: 'SearchAssetsResult', additionalProperties: false },
);

/** One value of a facet (SearchFacet.values). */
export const SearchFacetValue = Type.Object(
  {
    value: Type.String({
      description:
        'The value as text: an extension (lower case); IMAGE, VIDEO, AUDIO, DOCUMENT or OTHER; LANDSCAPE, PORTRAIT or SQUARE; a tag id; a colour family (white, grey, black, red, orange, brown, yellow, green, cyan, blue, purple, pink); a folder id; VALID, NOT_STARTED or EXPIRED; a select option.',
    }),
    label: nullable(Type.String({ description: "The tag's or folder's name (tags, folder); null for the other facets." })),
    count: Type.Integer({ description: 'Matches carrying the value (exact).' }),
  },
  { $id: 'SearchFacetValue', additionalProperties: false },
);

/** Counts of one facet over a search's matches (Shelf extension, docs/search.md "Facets"). */
export const SearchFacet = Type.Object(
  {
    facet: Type.String({ description: 'The facet as asked: extension, type, orientation, tags, colorFamily, folder, validity or customField:<id>.' }),
    values: Type.Array(Type.Ref('SearchFacetValue'), { description: 'At most facetLimit values, most matches first, ties by value (as text) ascending.' }),
    other: Type.Integer({ description: 'Matches counted under values not listed (tags: tag assignments, since a file counts once per tag it carries).' }),
    otherValues: Type.Integer({ description: 'How many values are not listed.' }),
    missing: Type.Integer({
      description:
        'Matches without a value: no extension, no tag, at the library root, no palette (colorFamily), no width and height (orientation), no value of the custom field.',
    }),
  },
  { $id: 'SearchFacet', additionalProperties: false },
);

export const SearchShareResult = Type.Object(
  {
    assets: Type.Array(Type.Ref('AssetItem'), { description: 'The page of matching assets inside the shared folder.' }),
    totalCount: Type.Integer({ description: 'Exact number of matching assets.' }),
    folders: Type.Array(Type.Ref('FolderDTO'), { description: "With needChildren: the listed folder's child folders (filtered by keyword)." }),
    folderCount: Type.Integer({ description: 'How many folders `folders` holds.' }),
  },
  { $id: 'SearchShareResult', additionalProperties: false },
);

/** What search-assets returns (SearchAssetsResult). */
export interface AssetSearchResult {
  assets: AssetItem[];
  total: number;
  folders?: FolderDTO[];
  folderCount?: number;
  /** Only when the request named facets. */
  facets?: FacetResult[];
}

/** What search-share returns (SearchShareResult). */
export interface ShareSearchResult {
  assets: AssetItem[];
  totalCount: number;
  folders: FolderDTO[];
  folderCount: number;
}
