import { type Static, type TSchema, Type } from 'typebox';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';
import { PageQuery } from '../../platform/pagination.schemas.ts';
import { optionalFields } from '../../platform/schema-shapes.ts';

/** Spec 8: category limits. */
export const CATEGORY_MAX_DEPTH = 10;
export const CATEGORY_MAX_NODES_PER_BRAND = 5000;
export const CATEGORY_MAX_SORT_ORDER = 5000;

const resourceId = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, description });
const nullable = <T extends TSchema>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description });

const categoryFields = {
  // lengths count Unicode code points, as PostgreSQL varchar does
  name: Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^(?=.*\\S)[^/]+$',
    description: 'Exact value (not trimmed), 1-64 characters, at least one non-whitespace character, no slash; unique among live siblings.',
  }),
  parentId: nullable(resourceId('A live category of the same brand.'), 'The parent category; null (or omitted on create) makes a root.'),
  sortOrder: Type.Integer({
    minimum: 0,
    maximum: CATEGORY_MAX_SORT_ORDER,
    description:
      'Zero-based insertion index among the destination live siblings, at most their count. Omitted: append on create or move, unchanged on a same-parent update.',
  }),
  description: nullable(Type.String(), 'Free text.'),
  iconEmoji: nullable(Type.String({ maxLength: 16 }), 'At most 16 characters (code points).'),
  iconAssetId: nullable(resourceId('A category icon asset of your team (not a file-path ID).'), 'A category icon asset id, or null for none.'),
  isEnabled: Type.Boolean(),
};

/** Spec 4.3 CategoryCreate; unknown fields are rejected. */
export const CategoryCreate = Type.Object(
  {
    brandId: resourceId('A live brand of your team; immutable afterwards.'),
    name: categoryFields.name,
    parentId: Type.Optional(categoryFields.parentId),
    sortOrder: Type.Optional(categoryFields.sortOrder),
    description: Type.Optional(categoryFields.description),
    iconEmoji: Type.Optional(categoryFields.iconEmoji),
    iconAssetId: Type.Optional(categoryFields.iconAssetId),
    isEnabled: Type.Optional(categoryFields.isEnabled),
  },
  { $id: 'CategoryCreate', additionalProperties: false, examples: [{ brandId: 7, name: 'Outdoor', parentId: null, iconEmoji: '⛺' }] },
);
export type CategoryCreate = Static<typeof CategoryCreate>;

/** Spec 4.3 CategoryPatch: CategoryCreate without brandId (immutable), all optional, at least one field. */
export const CategoryPatch = optionalFields(categoryFields, ['name', 'parentId', 'sortOrder', 'description', 'iconEmoji', 'iconAssetId', 'isEnabled'], {
  $id: 'CategoryPatch',
  additionalProperties: false,
  minProperties: 1,
});
export type CategoryPatch = Static<typeof CategoryPatch>;

/** Spec 2.3 Category as returned. */
export const CategoryView = Type.Object(
  {
    id: Type.Integer(),
    brandId: Type.Integer(),
    parentId: Type.Union([Type.Integer(), Type.Null()]),
    name: Type.String(),
    pathKey: Type.String({ description: 'Names from the root, each preceded by a slash, e.g. "/Shoes/Running".' }),
    description: Type.Union([Type.String(), Type.Null()]),
    iconEmoji: Type.Union([Type.String(), Type.Null()]),
    iconAssetId: Type.Union([Type.Integer(), Type.Null()]),
    sortOrder: Type.Integer({ description: 'Zero-based position among live siblings.' }),
    isEnabled: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  {
    $id: 'Category',
    additionalProperties: false,
    examples: [
      {
        id: 31,
        brandId: 7,
        parentId: null,
        name: 'Outdoor',
        pathKey: '/Outdoor',
        description: null,
        iconEmoji: '⛺',
        iconAssetId: null,
        sortOrder: 0,
        isEnabled: true,
        createdAt: '2026-11-22T15:04:02.118204Z',
        updatedAt: '2026-11-22T15:04:02.118204Z',
      },
    ],
  },
);
export type CategoryView = Static<typeof CategoryView>;

/** Spec 4.3 listCategorys query: ordinary paging plus the optional brand filter. */
export const CategoryListQuery = Type.Object({
  ...PageQuery.properties,
  brandId: Type.Optional(resourceId('Only categories of this brand (of your team).')),
});
export type CategoryListQuery = Static<typeof CategoryListQuery>;
