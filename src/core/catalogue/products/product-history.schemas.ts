import { type Static, Type } from 'typebox';
import type { ActivityAction } from '../activity/activity-records.schemas.ts';

/**
 * What a change did to a product: the activity actions a product can have; `template_upgraded`:
 * it moved to a newer version of its template (docs/products.md "Template upgrades").
 */
export const HISTORY_ACTIONS = ['created', 'updated', 'published', 'unpublished', 'deleted', 'template_upgraded'] as const satisfies readonly ActivityAction[];
export type HistoryAction = (typeof HISTORY_ACTIONS)[number];

/** One changed field: `templateFields.<fieldId>` for a template value, media lists as file-path ID arrays. */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

export const ProductHistoryItem = Type.Object(
  {
    id: Type.String({ description: 'Entry id (a decimal string), increasing with time.' }),
    action: Type.String({ description: '`created`, `updated`, `published`, `unpublished`, `deleted` or `template_upgraded`.' }),
    at: Type.String({ format: 'date-time', description: 'When the change committed (RFC 3339, UTC, microseconds).' }),
    actor: Type.String({ description: 'Who made it: `key:<id>`, `member:<id>` or `system:<job>`.' }),
    keyId: Type.Union([Type.Integer(), Type.Null()], { description: 'The API key behind the change; null for operators and the system.' }),
    role: Type.Union([Type.String(), Type.Null()], { description: "That key's role at the time; null without a key." }),
    requestId: Type.Union([Type.String(), Type.Null()], { description: 'The request id (X-Request-Id) of the change.' }),
    changes: Type.Array(Type.Object({ field: Type.String(), before: Type.Unknown(), after: Type.Unknown() }, { additionalProperties: false }), {
      description:
        'The fields that changed, with their values before and after (template values per field id as `templateFields.<id>`, media as file-path ID lists).',
    }),
  },
  { $id: 'ProductHistoryItem', additionalProperties: false },
);

export type ProductHistoryItem = Static<typeof ProductHistoryItem>;
