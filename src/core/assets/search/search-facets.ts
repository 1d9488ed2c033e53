import type { Ctx } from '../../platform/ctx.ts';
import { type FieldIssue, invalidFields } from '../../platform/errors.ts';
import type { VersionedMemo } from '../../platform/versioned-memo.ts';
import { countFacet, customFieldTypes, facetLabels } from './facets.queries.ts';
import { type FacetCounts, type FacetPlan, type FacetResult, type FacetSpec, facetName } from './facets.ts';
import type { ResolvedFilter } from './search.queries.ts';
import type { SearchFilter } from './search-filter.ts';

const NO_MATCHES: FacetCounts = { values: [], other: 0, otherValues: 0, missing: 0 };

/**
 * Facet counts of a search (docs/search.md "Facets"). Each facet is one grouped statement over
 * the search's matches, run in parallel with the page and the total, and memoized like the total:
 * per (team, library version, normalised filter, facet, facetLimit), so every other page and
 * repeat of a search, and the same facet asked with other facets, count nothing until the library
 * changes. Labels (tag and folder names) are read fresh for the listed values: renaming a tag
 * does not change the library version.
 */
export class SearchFacets {
  private readonly memo: VersionedMemo<FacetCounts>;

  constructor(memo: VersionedMemo<FacetCounts>) {
    this.memo = memo;
  }

  /**
   * Refuses facets over a custom field that is not a select field of the team (another team's or
   * an unknown id reads the same: "is not a select custom field of the team"), naming `facets[i]`.
   */
  async checkCustomFields(ctx: Ctx, plan: FacetPlan): Promise<void> {
    const asked = plan.facets.flatMap((facet, index) => (facet.name === 'customField' ? [{ index, fieldId: facet.fieldId }] : []));
    if (asked.length === 0) return;
    const types = await customFieldTypes(
      ctx,
      asked.map((a) => a.fieldId),
    );
    const issues: FieldIssue[] = [];
    for (const { index, fieldId } of asked) {
      const type = types.get(fieldId);
      if (type === undefined) issues.push({ field: `facets[${index}]`, message: `customField:${fieldId} is not a custom field of the team` });
      else if (type !== 'select')
        issues.push({ field: `facets[${index}]`, message: `customField:${fieldId} is a ${type} field: only select custom fields have facets` });
    }
    if (issues.length > 0) throw invalidFields(issues);
  }

  /** The counts of every facet of `plan` over the search's matches, in request order. `knownTotal` 0 needs no statement. */
  async count(
    ctx: Ctx,
    version: string,
    filter: SearchFilter,
    resolved: ResolvedFilter,
    plan: FacetPlan,
    knownTotal: number | undefined,
  ): Promise<FacetResult[]> {
    const filterKey = JSON.stringify(filter);
    return Promise.all(
      plan.facets.map(async (facet) => {
        const counts =
          knownTotal === 0
            ? NO_MATCHES
            : await this.memo.get(ctx.teamId, version, `facet|${facetName(facet)}|${plan.limit}|${filterKey}`, () =>
                countFacet(ctx, filter, resolved, facet, plan.limit),
              );
        return this.labelled(ctx, facet, counts);
      }),
    );
  }

  /** The result of one facet: its counts, with the names of tags and folders. */
  private async labelled(ctx: Ctx, facet: FacetSpec, counts: FacetCounts): Promise<FacetResult> {
    let names = new Map<string, string>();
    if ((facet.name === 'tags' || facet.name === 'folder') && counts.values.length > 0) {
      names = await facetLabels(
        ctx,
        facet.name,
        counts.values.map((v) => Number(v.value)),
      );
    }
    return {
      facet: facetName(facet),
      values: counts.values.map((v) => ({ value: v.value, label: names.get(v.value) ?? null, count: v.count })),
      other: counts.other,
      otherValues: counts.otherValues,
      missing: counts.missing,
    };
  }
}
