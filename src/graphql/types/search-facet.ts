import { FACET_LIMITS, type FacetResult } from '../../core/assets/search/facets.ts';
import { SearchFacet, SearchFacetValue } from '../../core/assets/search/search.schemas.ts';
import { builder } from '../builder.ts';
import { countedAs, listCost } from '../costs.ts';
import { describedBy } from '../schema-descriptions.ts';

const fromFacet = describedBy(SearchFacet);
const fromFacetValue = describedBy(SearchFacetValue);

const SearchFacetValueRef = builder.objectRef<FacetResult['values'][number]>('SearchFacetValue').implement({
  description: 'One value of a facet and how many matches of the search carry it (docs/search.md "Facets").',
  fields: (t) => ({
    value: t.exposeString('value', fromFacetValue('value')),
    label: t.exposeString('label', { nullable: true, ...fromFacetValue('label') }),
    count: t.exposeFloat('count', fromFacetValue('count')),
  }),
});

/** Counts of one facet of searchAssets (AssetSearchResult.facets). */
export const SearchFacetRef = builder.objectRef<FacetResult>('SearchFacet').implement({
  description: 'Exact counts per value of one facet over the matches of searchAssets (same filters as total, currentUserId included; docs/search.md "Facets").',
  fields: (t) => ({
    facet: t.exposeString('facet', fromFacet('facet')),
    values: t.field({
      type: [SearchFacetValueRef],
      description: `${fromFacet('values').description} ${countedAs(FACET_LIMITS.maxValues, 'facetLimit is at most 50')}`,
      complexity: listCost(FACET_LIMITS.maxValues),
      resolve: (facet) => facet.values,
    }),
    other: t.exposeFloat('other', fromFacet('other')),
    otherValues: t.exposeInt('otherValues', fromFacet('otherValues')),
    missing: t.exposeFloat('missing', fromFacet('missing')),
  }),
});
