import { admitStored } from '../../platform/answer-budget.ts';
import type { Ctx } from '../../platform/ctx.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { isResourceId } from '../../platform/ids.ts';
import { compileInput } from '../../platform/validate.ts';
import type { VersionedMemo } from '../../platform/versioned-memo.ts';
import type { LinkSigner } from '../delivery/links.ts';
import { toAssetItem } from './asset-items.ts';
import { type AssetRow, assetRowsBytes, assetRowsInOrder } from './asset-rows.queries.ts';
import type { FacetCounts } from './facets.ts';
import { andTagIds, tagsOnlyIds } from './narrow-tables.queries.ts';
import {
  COLOUR_IDS_MAX,
  type ColourMatch,
  childFolders,
  countMatches,
  type ResolvedFilter,
  readColourMatch,
  readSearchPreamble,
  type SearchPreamble,
} from './search.queries.ts';
import { type AssetItem, type AssetSearchResult, SearchAssetsRequest } from './search.schemas.ts';
import { SearchFacets } from './search-facets.ts';
import { type AssetSearchPlan, planAssetSearch } from './search-filter.ts';
import { COLLECT_MAX_MATCHES, MAX_FOLDER_BRANCHES, type PageStatement, pageIdsOf, searchStatements } from './search-pages.queries.ts';
import type { TagFileCounts } from './tag-file-counts.ts';

export { searchStatements };

const checkSearchAssets = compileInput(SearchAssetsRequest);

/** Plans a search-assets body (validation included) without running it: the benchmark's entry point. */
export function planSearch(input: unknown): AssetSearchPlan {
  return planAssetSearch(checkSearchAssets(input));
}

/**
 * Asset search over a team's library (spec 4.6 search-assets). Area B carries no collaborator
 * role (spec 5): any valid key of the team may search its library. Every query filters by the
 * key's team; a folder or member of another team is "not found" or invalid, never visible.
 */
export class AssetSearchService {
  private readonly signer: LinkSigner;
  private readonly totals: VersionedMemo<number>;
  private readonly colourMatches: VersionedMemo<ColourMatch>;
  private readonly tagFileCounts: TagFileCounts;
  private readonly facets: SearchFacets;
  /** COLOUR_IDS_MAX; tests lower it to exercise both kinds of colour condition on a small library. */
  colourIdsMax = COLOUR_IDS_MAX;
  /** COLLECT_MAX_MATCHES; tests lower it to exercise the walking page shapes on a small library. */
  collectMaxMatches = COLLECT_MAX_MATCHES;

  constructor(deps: {
    signer: LinkSigner;
    totals: VersionedMemo<number>;
    colourMatches: VersionedMemo<ColourMatch>;
    tagFileCounts: TagFileCounts;
    facetCounts: VersionedMemo<FacetCounts>;
  }) {
    this.signer = deps.signer;
    this.totals = deps.totals;
    this.colourMatches = deps.colourMatches;
    this.tagFileCounts = deps.tagFileCounts;
    this.facets = new SearchFacets(deps.facetCounts);
  }

  /**
   * search-assets: matching assets of the page, the exact total, with needChildren the child
   * folders (spec 4.6), and with facets the counts per value of each (docs/search.md "Facets").
   * One result for every adapter: each asset with its tags, read with its row.
   */
  async search(ctx: Ctx, input: unknown): Promise<AssetSearchResult> {
    const plan = planAssetSearch(checkSearchAssets(input === undefined ? {} : input));
    // the version is read before the count runs (versioned-memo.ts), with the reference checks
    const preamble = await this.preamble(ctx, plan);
    const version = preamble.version;
    const filterKey = JSON.stringify(plan.filter);
    // a total already known chooses the page's shape, and answers a page past the end without a query
    const knownTotal = this.totals.peek(ctx.teamId, version, filterKey);
    const [resolved] = await Promise.all([
      this.resolve(ctx, version, plan, preamble, knownTotal),
      plan.facets ? this.facets.checkCustomFields(ctx, plan.facets) : undefined,
    ]);
    const statements = searchStatements(ctx.teamId, plan, resolved, knownTotal, this.collectMaxMatches);
    const pageIsEmpty = plan.page.limit === 0 || (knownTotal !== undefined && plan.page.offset >= knownTotal);
    const [rows, total, folders, facets] = await Promise.all([
      pageIsEmpty ? Promise.resolve([]) : this.pageRows(ctx, statements.page),
      this.totals.get(ctx.teamId, version, filterKey, () => countMatches(ctx, statements.count)),
      plan.needChildren ? childFolders(ctx, plan.filter) : Promise.resolve(null),
      plan.facets ? this.facets.count(ctx, version, plan.filter, resolved, plan.facets, knownTotal) : Promise.resolve(null),
    ]);
    const links = { actor: ctx.actor, teamId: ctx.teamId, derivative: plan.derivative, nowMs: Date.now() };
    const result: AssetSearchResult = { assets: rows.map((row) => toAssetItem(row, this.signer, links)), total };
    if (folders) {
      result.folders = folders;
      result.folderCount = folders.length;
    }
    if (facets) result.facets = facets;
    return result;
  }

  /** AssetItems (with their tags) of the live files of the team among `ids`, in id order (GraphQL libraryFile and edit results). */
  async findItems(ctx: Ctx, ids: readonly number[]): Promise<AssetItem[]> {
    const ordered = [...new Set(ids.filter(isResourceId))].sort((a, b) => a - b);
    const rows = await assetRowsInOrder(ctx, ordered);
    const links = { actor: ctx.actor, teamId: ctx.teamId, derivative: null, nowMs: Date.now() };
    return rows.map((row) => toAssetItem(row, this.signer, links));
  }

  /**
   * The page's ids (bound parameters: planned for their values, or prepared when the shape's plan
   * does not depend on them, search-pages.queries.ts), then their rows (a prepared statement), in page order.
   */
  private async pageRows(ctx: Ctx, page: PageStatement): Promise<AssetRow[]> {
    const ids = await pageIdsOf(ctx, page);
    // a page of 100 files can carry about 13 MB of text: admitted against the answer's budget first
    if (ctx.answer) await admitStored(ctx, await assetRowsBytes(ctx, ids));
    return assetRowsInOrder(ctx, ids);
  }

  /**
   * The library version, the reference checks (parentId a live folder of the team, 404 otherwise;
   * currentUserId a member of the team) and the folders of a parentId subtree searched in creation
   * order (search-pages.queries.ts), in one statement.
   */
  private async preamble(ctx: Ctx, plan: AssetSearchPlan): Promise<SearchPreamble> {
    const subtreeLimit = plan.order.name === 'CREATE_TIME' ? MAX_FOLDER_BRANCHES + 1 : null;
    const row = await readSearchPreamble(ctx, plan.filter, subtreeLimit);
    if (!row.folderFound) throw notFound('Folder');
    if (!row.memberFound) throw invalid('currentUserId', 'is not a member of the team');
    return row;
  }

  /**
   * What the statements need resolved first: the stored objects matching the colour filter (once
   * per library version: the memo's key carries it; their ids only when few), the folders of a
   * small parentId subtree (at most MAX_FOLDER_BRANCHES, else none: the page walks instead), and the
   * rarest tag of an AND of tags when its postings will be walked (walkTagOf).
   */
  private async resolve(ctx: Ctx, version: string, plan: AssetSearchPlan, preamble: SearchPreamble, knownTotal: number | undefined): Promise<ResolvedFilter> {
    const { colour } = plan.filter;
    const idsMax = this.colourIdsMax;
    const [colourMatch, walkTag] = await Promise.all([
      colour ? this.colourMatches.get(ctx.teamId, version, JSON.stringify({ colour, idsMax }), () => readColourMatch(ctx, colour, idsMax)) : undefined,
      this.walkTagOf(ctx, plan, knownTotal),
    ]);
    const subtree = preamble.subtreeFolderIds?.map(Number);
    const subtreeFolderIds = subtree && subtree.length <= MAX_FOLDER_BRANCHES ? subtree : undefined;
    return {
      ...(colourMatch ? { colour: colourMatch } : {}),
      ...(subtreeFolderIds ? { subtreeFolderIds } : {}),
      ...(walkTag !== undefined ? { walkTag } : {}),
    };
  }

  /**
   * The rarest tag of an AND of tags, when a statement will walk its postings: a tags-only search
   * (its count, and its page in creation order), or one with other filters in creation order once
   * more than collectMaxMatches matches are known (search-pages.queries.ts). Counting a popular tag's
   * postings costs up to 30 ms, once a minute: not worth paying for a search that will not walk.
   */
  private async walkTagOf(ctx: Ctx, plan: AssetSearchPlan, knownTotal: number | undefined): Promise<number | undefined> {
    const tagIds = andTagIds(plan.filter);
    if (!tagIds) return undefined;
    const walks = tagsOnlyIds(plan.filter) !== null || (plan.order.name === 'CREATE_TIME' && knownTotal !== undefined && knownTotal > this.collectMaxMatches);
    return walks ? this.tagFileCounts.rarest(ctx, tagIds) : undefined;
  }
}
