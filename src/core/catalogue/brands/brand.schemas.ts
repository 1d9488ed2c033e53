import { type Static, Type } from 'typebox';
import { optionalFields } from '../../platform/schema-shapes.ts';

const nullableString = (maxLength: number, description: string) => Type.Union([Type.String({ maxLength }), Type.Null()], { description });

const brandFields = {
  name: Type.String({ maxLength: 1024, description: 'Trimmed before validation, then 1-128 characters; duplicates allowed.' }),
  description: nullableString(512, 'At most 512 characters.'),
  website: nullableString(512, 'An http(s) URL of at most 512 characters; null or empty clears.'),
  logoUrl: nullableString(
    512,
    'http(s) only, no credentials, host on the allowlist (the service host plus LOGO_HOST_ALLOWLIST); query and fragment are removed; null or empty clears; never returned in reads.',
  ),
  sortOrder: Type.Integer({ minimum: 0, maximum: 2147483647, description: 'Listing position; lists order by sortOrder then id.' }),
  isEnabled: Type.Boolean(),
};

/**
 * Spec 4.2 BrandCreate, as REST clients send it: exactly name, description and logoUrl ("unknown
 * fields rejected").
 */
export const BrandCreate = Type.Object(
  {
    name: brandFields.name,
    description: Type.Optional(brandFields.description),
    logoUrl: Type.Optional(brandFields.logoUrl),
  },
  {
    $id: 'BrandCreate',
    additionalProperties: false,
    examples: [{ name: 'Acme', description: 'Tools for everyone', logoUrl: 'https://shelf.example.com/files/logo.png' }],
  },
);

/** Spec 4.2 BrandPatch as REST clients send it: any of name, description, logoUrl, at least one. */
export const BrandPatch = optionalFields(brandFields, ['name', 'description', 'logoUrl'], { $id: 'BrandPatch', additionalProperties: false, minProperties: 1 });

/** A brand as signed-in frontends (GraphQL) and operators create it: the spec's fields plus website, sortOrder and isEnabled. */
export const BrandCreateExtended = Type.Object(
  {
    name: brandFields.name,
    description: Type.Optional(brandFields.description),
    website: Type.Optional(brandFields.website),
    logoUrl: Type.Optional(brandFields.logoUrl),
    sortOrder: Type.Optional(brandFields.sortOrder),
    isEnabled: Type.Optional(brandFields.isEnabled),
  },
  { additionalProperties: false },
);
export type BrandCreateExtended = Static<typeof BrandCreateExtended>;

/** Changes as GraphQL sends them: the spec's fields plus website, sortOrder and isEnabled; at least one. */
export const BrandPatchExtended = optionalFields(brandFields, ['name', 'description', 'website', 'logoUrl', 'sortOrder', 'isEnabled'], {
  additionalProperties: false,
  minProperties: 1,
});
export type BrandPatchExtended = Static<typeof BrandPatchExtended>;

/** Spec 2.2 Brand as returned; the raw logo URL is never part of it. */
export const BrandView = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    code: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    website: Type.Union([Type.String(), Type.Null()]),
    sortOrder: Type.Integer(),
    isEnabled: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  {
    $id: 'Brand',
    additionalProperties: false,
    examples: [
      {
        id: 7,
        name: 'Acme',
        code: 'BK3H7Q2M9X',
        description: 'Tools for everyone',
        website: null,
        sortOrder: 0,
        isEnabled: true,
        createdAt: '2026-11-22T15:03:19.632639Z',
        updatedAt: '2026-11-22T15:03:19.632639Z',
      },
    ],
  },
);
export type BrandView = Static<typeof BrandView>;
