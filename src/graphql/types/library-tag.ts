import type { TagDTO } from '../../core/assets/search/search.schemas.ts';
import { builder } from '../builder.ts';

export const LibraryTagRef = builder.objectRef<TagDTO>('LibraryTag').implement({
  description: 'A tag of the team library (spec 2.6 TagDTO).',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Tag id: search-assets tags.' }),
    name: t.exposeString('name', { description: "The tag's name, unique in the team." }),
  }),
});
