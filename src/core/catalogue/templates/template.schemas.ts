import { type Static, Type } from 'typebox';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';
import { optionalFields } from '../../platform/schema-shapes.ts';

/** Spec 2.4: the field types a template field can have. */
export const FIELD_TYPES = [
  'text',
  'textarea',
  'email',
  'phone',
  'url',
  'color',
  'date',
  'dateRange',
  'number',
  'currency',
  'richtext',
  'select',
  'radio',
  'checkbox',
  'image',
  'file',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Spec 2.4: every system key a field can carry; only name, sku and mainImage are ever seeded. */
export const SYSTEM_KEYS = ['name', 'sku', 'brand', 'category', 'description', 'mainImage'] as const;
export type SystemKey = (typeof SYSTEM_KEYS)[number];

/** Spec 4.4 syncStrategy: how a template change reaches products; only newOnly (products keep their pinned version). */
export const SYNC_STRATEGIES = ['newOnly'] as const;
export type SyncStrategy = (typeof SYNC_STRATEGIES)[number];

/** Spec 8: template limits. */
export const TEMPLATE_LIMITS = {
  name: 30,
  description: 50,
  groups: 200,
  fieldsTotal: 200,
  groupName: 128,
  fieldName: 128,
  fieldKey: 64,
  placeholder: 255,
  bindings: 10_000,
  id: 128,
} as const;

/** Opaque template, group, field and version ids (spec 2.1): 1-128 characters. */
export const OpaqueId = Type.String({ minLength: 1, maxLength: TEMPLATE_LIMITS.id });

const Config = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Per-type configuration (spec 2.4); validated for the field type by the service.',
});

/** Spec 4.4 Field input; unknown properties are rejected. */
const TemplateFieldInput = Type.Object(
  {
    id: Type.Optional(
      Type.String({ minLength: 1, maxLength: TEMPLATE_LIMITS.id, description: 'Required for an existing field of this group; omitted for a new field.' }),
    ),
    key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: TEMPLATE_LIMITS.fieldKey,
        pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
        description:
          'New field: required identifier, unique in the template ignoring case; name, sku, brand, category, description and mainImage are reserved. Immutable afterwards.',
      }),
    ),
    name: Type.Optional(Type.String({ maxLength: 1024, description: 'New field: required; trimmed, then 1-128 characters.' })),
    type: Type.Optional(Type.Enum(FIELD_TYPES, { description: 'New field: required.' })),
    required: Type.Optional(Type.Boolean({ description: 'Default false for a new field.' })),
    placeholder: Type.Optional(Type.Union([Type.String({ maxLength: TEMPLATE_LIMITS.placeholder }), Type.Null()])),
    sortOrder: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_RESOURCE_ID - 3,
        description:
          'Unique within the group; default the array position. In the first group custom fields follow the three system fields: the value is increased by 3.',
      }),
    ),
    config: Type.Optional(Config),
    typeChangeConfirmed: Type.Optional(Type.Boolean({ description: 'Write-only: true confirms a type change that drops configuration.' })),
    isSystemField: Type.Optional(Type.Boolean({ description: 'Accepted only when it matches the stored field; cannot create or reassign system identities.' })),
    systemKey: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Accepted only when it matches the stored field.' })),
  },
  { additionalProperties: false },
);
export type TemplateFieldInput = Static<typeof TemplateFieldInput>;

/** Spec 4.4 TemplateGroupInput; groups take no sortOrder or isDefault. */
const TemplateGroupInput = Type.Object(
  {
    id: Type.Optional(
      Type.String({ minLength: 1, maxLength: TEMPLATE_LIMITS.id, description: 'Required for an existing group of this template; omitted for a new group.' }),
    ),
    name: Type.String({ maxLength: 1024, description: 'Trimmed, then 1-128 characters.' }),
    fields: Type.Array(TemplateFieldInput, { maxItems: TEMPLATE_LIMITS.fieldsTotal }),
  },
  { additionalProperties: false },
);
export type TemplateGroupInput = Static<typeof TemplateGroupInput>;

const BindingIds = (what: string) =>
  Type.Array(Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID }), {
    maxItems: TEMPLATE_LIMITS.bindings,
    description: `Replaces the template's ${what} bindings; live ${what}s of this library; a ${what} bound elsewhere moves here. Duplicates are ignored.`,
  });

const templateFields = {
  name: Type.String({ maxLength: 1024, description: 'Trimmed, then 1-30 characters; unique among live templates of the library.' }),
  description: Type.Union([Type.String({ maxLength: 1024 }), Type.Null()], { description: 'Trimmed, then at most 50 characters; blank becomes null.' }),
  enabled: Type.Boolean(),
  groups: Type.Array(TemplateGroupInput, {
    minItems: 1,
    maxItems: TEMPLATE_LIMITS.groups,
    description: '1-200 groups, at most 200 fields in total including the three system fields.',
  }),
  boundBrandIds: BindingIds('brand'),
  boundCategoryIds: BindingIds('category'),
  isLibraryDefault: Type.Boolean({ description: 'true makes this the library default (the previous one loses it); false clears it on this template.' }),
  syncStrategy: Type.Literal(SYNC_STRATEGIES[0], { description: 'Only newOnly: existing products keep their pinned version.' }),
};

/** Spec 4.4 TemplateCreate; unknown fields rejected. */
export const TemplateCreate = Type.Object(
  {
    name: templateFields.name,
    description: Type.Optional(templateFields.description),
    enabled: Type.Optional(templateFields.enabled),
    groups: templateFields.groups,
    boundBrandIds: Type.Optional(templateFields.boundBrandIds),
    boundCategoryIds: Type.Optional(templateFields.boundCategoryIds),
    isLibraryDefault: Type.Optional(templateFields.isLibraryDefault),
    syncStrategy: Type.Optional(templateFields.syncStrategy),
  },
  {
    $id: 'TemplateCreate',
    additionalProperties: false,
    examples: [
      {
        name: 'Outdoor gear',
        description: 'Tents and packs',
        groups: [
          {
            name: 'Specs',
            fields: [
              { key: 'material', name: 'Material', type: 'text', required: true },
              { key: 'weight_g', name: 'Weight (g)', type: 'number' },
            ],
          },
        ],
        boundBrandIds: [7],
      },
    ],
  },
);
export type TemplateCreate = Static<typeof TemplateCreate>;

/** Spec 4.4 TemplatePatch: every field optional, at least one; `groups` replaces the definition. */
export const TemplatePatch = optionalFields(
  templateFields,
  ['name', 'description', 'enabled', 'groups', 'boundBrandIds', 'boundCategoryIds', 'isLibraryDefault', 'syncStrategy'],
  { $id: 'TemplatePatch', additionalProperties: false, minProperties: 1 },
);
export type TemplatePatch = Static<typeof TemplatePatch>;

/** Spec 4.4 TemplateDelete (optional body). */
export const TemplateDelete = Type.Object(
  {
    replacementForLibraryDefault: Type.Optional(
      Type.Union([OpaqueId, Type.Null()], {
        description: 'Required when deleting the library default: another live template of the library, or null to leave the library without a default.',
      }),
    ),
  },
  { $id: 'TemplateDelete', additionalProperties: false },
);
export type TemplateDelete = Static<typeof TemplateDelete>;

/** Spec 2.4 Field as returned; `typeChangeConfirmed` never is. */
export const TemplateFieldView = Type.Object(
  {
    id: Type.String(),
    key: Type.String(),
    name: Type.String(),
    type: Type.Enum(FIELD_TYPES),
    required: Type.Boolean(),
    placeholder: Type.Union([Type.String(), Type.Null()]),
    sortOrder: Type.Integer(),
    config: Config,
    isSystemField: Type.Boolean(),
    systemKey: Type.Union([Type.Enum(SYSTEM_KEYS), Type.Null()]),
  },
  { $id: 'TemplateField', additionalProperties: false },
);
export interface TemplateFieldView {
  id: string;
  key: string;
  name: string;
  type: FieldType;
  required: boolean;
  placeholder: string | null;
  sortOrder: number;
  config: Record<string, unknown>;
  isSystemField: boolean;
  systemKey: SystemKey | null;
}

/** Spec 2.4 Group as returned; fields ordered by sortOrder then id. */
export const TemplateGroupView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    isDefault: Type.Boolean(),
    sortOrder: Type.Integer(),
    fields: Type.Array(Type.Ref('TemplateField')),
  },
  { $id: 'TemplateGroup', additionalProperties: false },
);
export interface TemplateGroupView {
  id: string;
  name: string;
  isDefault: boolean;
  sortOrder: number;
  fields: TemplateFieldView[];
}

/** Spec 2.4 Template as returned; groups ordered by sortOrder then id. */
export const TemplateView = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    enabled: Type.Boolean(),
    isSystemDefault: Type.Boolean({ description: 'Always false: Shelf ships no built-in templates; every template is created by a library.' }),
    isLibraryDefault: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    boundBrandIds: Type.Array(Type.Integer(), { description: 'Live bound brands, ascending.' }),
    boundCategoryIds: Type.Array(Type.Integer(), { description: 'Live bound categories, ascending.' }),
    groups: Type.Array(Type.Ref('TemplateGroup')),
  },
  { $id: 'Template', additionalProperties: false },
);
export interface TemplateView {
  id: string;
  name: string;
  description: string | null;
  enabled: boolean;
  isSystemDefault: boolean;
  isLibraryDefault: boolean;
  createdAt: string;
  updatedAt: string;
  boundBrandIds: number[];
  boundCategoryIds: number[];
  groups: TemplateGroupView[];
}

/** A pinned definition (spec 2.5 templateDefinition, 3.3): one immutable version of a template. */
export interface TemplateVersionView {
  id: string;
  templateId: string;
  number: number;
  name: string;
  description: string | null;
  createdAt: string;
  groups: TemplateGroupView[];
}

/** A version without its definition: what a list of versions shows when their groups are not asked. */
export type TemplateVersionSummary = Omit<TemplateVersionView, 'groups'>;

/** Which versions of one template a reader asks for: the newest `last` numbered below `before` (null: up to the current one). */
export interface VersionWindow {
  templateId: string;
  before: number | null;
  last: number;
}

/** What a new product pins: a live template and its newest version. */
export interface ResolvedTemplate {
  templateId: string;
  versionId: string;
}
