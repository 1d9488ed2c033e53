import { type Static, Type } from 'typebox';
import { MAX_RESOURCE_ID } from '../platform/ids.ts';

/** Limits of subscription requests (docs/events.md "Subscriptions"). */
export const SUBSCRIPTION_LIMITS = { folderIds: 100, eventTypes: 10, callbackUrlLength: 2048 } as const;

const callbackUrl = Type.String({
  minLength: 1,
  maxLength: SUBSCRIPTION_LIMITS.callbackUrlLength,
  description: 'Absolute http or https URL without user:password, resolving to a public address (README: OUTBOUND_ALLOW_HOSTS).',
});
// operation and eventType are checked by the core, so an unknown one gets its own code (unknown_operation, unknown_event_type)
const operation = Type.String({ description: '`ADD` (default) or `DELETE`.' });

/** Spec 4.7 OpenApiSubReq (`POST /open/folder-subscribe`). */
export const FolderSubscribeRequest = Type.Object(
  {
    folderIds: Type.Array(Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID }), {
      minItems: 1,
      maxItems: SUBSCRIPTION_LIMITS.folderIds,
      description: "Live folders of the key's team; each subscription covers the folder's whole subtree.",
    }),
    callbackUrl,
    eventType: Type.Optional(Type.String({ description: 'Only `FOLDER_CONTENT_UPDATE` (the default).' })),
    operation: Type.Optional(operation),
  },
  {
    $id: 'FolderSubscribeRequest',
    additionalProperties: false,
    examples: [{ folderIds: [12, 15], callbackUrl: 'https://hooks.example.com/shelf/folders', operation: 'ADD' }],
  },
);
export type FolderSubscribeRequest = Static<typeof FolderSubscribeRequest>;

/** Spec 4.7 `POST /open/material-automation-subscribe`. */
export const MaterialSubscribeRequest = Type.Object(
  {
    callbackUrl,
    eventTypes: Type.Array(Type.String(), {
      minItems: 1,
      maxItems: SUBSCRIPTION_LIMITS.eventTypes,
      description: 'Codes from `GET /open/material-automation-event-types`.',
    }),
    operation: Type.Optional(operation),
  },
  {
    $id: 'MaterialSubscribeRequest',
    additionalProperties: false,
    examples: [{ callbackUrl: 'https://hooks.example.com/shelf/materials', eventTypes: ['MATERIAL_INBOUND_COMPLETED', 'MATERIAL_DELETED'] }],
  },
);
export type MaterialSubscribeRequest = Static<typeof MaterialSubscribeRequest>;

/** Spec 4.7: an item of `GET /open/material-automation-event-types`. */
export const MaterialEventTypeItem = Type.Object(
  {
    code: Type.String({ description: 'The event type, as used in `eventTypes`.' }),
    desc: Type.String(),
    needsConfig: Type.Boolean({ description: 'Always false: no type needs configuration.' }),
    subscribed: Type.Boolean({ description: 'Whether the calling key has an active subscription to this type.' }),
  },
  { $id: 'MaterialEventTypeItem', additionalProperties: false },
);
export type MaterialEventTypeItem = Static<typeof MaterialEventTypeItem>;

/** Spec 4.8 `subscriptionChange` (fields besides `service`). */
export const ApprovalSubscriptionChange = Type.Object(
  { operation: Type.Optional(operation), callbackUrl: Type.Optional(callbackUrl) },
  { additionalProperties: false },
);

/** What `subscriptionQuery` answers (spec 4.8: "not shown"; docs/approvals.md documents it). */
export interface ApprovalSubscriptionView {
  subscribed: boolean;
  callbackUrl: string | null;
  /** `active` or `disabled`; null when not subscribed. */
  state: string | null;
  disabledReason: string | null;
  createdAt: string | null;
}
