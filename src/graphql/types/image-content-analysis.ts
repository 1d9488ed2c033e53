import type { AssetItem } from '../../core/assets/search/search.schemas.ts';
import { builder } from '../builder.ts';
import { JsonRef } from './json.ts';

export const AnalysisRef = builder.objectRef<NonNullable<AssetItem['imageContentAnalysis']>>('ImageContentAnalysis').implement({
  description: 'Image analysis of a file (spec 2.6), set by operators (`asset analysis set`) or updateLibraryFile; searched by DEEP keywords.',
  fields: (t) => ({
    aiTags: t.exposeString('aiTags', { nullable: true, description: 'Tags the analysis gave, as text; null when unset.' }),
    aiTitle: t.exposeString('aiTitle', { nullable: true, description: 'A title; null when unset.' }),
    aiDescription: t.exposeString('aiDescription', { nullable: true, description: 'A description; null when unset.' }),
    aiDetailedDescription: t.field({
      type: JsonRef,
      nullable: true,
      description: 'A JSON array (at most 64 KiB); null when unset.',
      resolve: (a) => a.aiDetailedDescription,
    }),
  }),
});

export const AnalysisInput = builder.inputType('ImageContentAnalysisInput', {
  description: 'Each field optional; null clears it.',
  fields: (t) => ({
    aiTags: t.string({ description: 'Analysis tags as text.' }),
    aiTitle: t.string({ description: 'A title.' }),
    aiDescription: t.string({ description: 'A description.' }),
    aiDetailedDescription: t.field({ type: JsonRef, description: 'A JSON array.' }),
  }),
});
