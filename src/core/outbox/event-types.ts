/** Spec 6.2: the team material event types a key may subscribe to, with what each reports. */
export const MATERIAL_EVENT_TYPES = [
  { code: 'MATERIAL_INBOUND_COMPLETED', desc: 'Material has been stored (an upload or a confirmed pending inbound).' },
  { code: 'MATERIAL_ADDED_TO_FOLDER', desc: 'Material was added to a folder (upload into a folder, a move, a restore).' },
  { code: 'MATERIAL_METADATA_UPDATED', desc: 'Name, description, score, link, tags, owner, validity, custom metadata or custom fields changed.' },
  { code: 'MATERIAL_VERSION_CHANGED', desc: 'A version was added, set as cover or removed.' },
  { code: 'MATERIAL_DELETED', desc: 'Material was deleted (to the recycle bin, or permanently).' },
] as const;
export type MaterialEventType = (typeof MATERIAL_EVENT_TYPES)[number]['code'];

/** Spec 6.1: the folder subscription's one event type. */
export const FOLDER_EVENT_TYPE = 'FOLDER_CONTENT_UPDATE' as const;
/** Spec 6.3: approval callbacks. */
export const APPROVAL_EVENT_TYPE = 'APPROVAL' as const;

/** The eventType of a test delivery (sendTestEvent); receivers tell it apart also by `test: true`. */
export const TEST_EVENT_TYPE = 'WEBHOOK_TEST';

/** Every eventType a webhook body can carry: the subscribable ones and the test event. */
export const EVENT_TYPES = [FOLDER_EVENT_TYPE, ...MATERIAL_EVENT_TYPES.map((t) => t.code), APPROVAL_EVENT_TYPE, TEST_EVENT_TYPE] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What a subscription is to (spec 4.7, 4.8): a folder's content (6.1), the team's material events (6.2), approval callbacks (6.3). */
export const SUBSCRIPTION_KINDS = ['folder', 'material', 'approval'] as const;
export type SubscriptionKind = (typeof SUBSCRIPTION_KINDS)[number];

export const SUBSCRIPTION_OPERATIONS = ['ADD', 'DELETE'] as const;
export type SubscriptionOperation = (typeof SUBSCRIPTION_OPERATIONS)[number];

export function isMaterialEventType(value: string): value is MaterialEventType {
  return MATERIAL_EVENT_TYPES.some((t) => t.code === value);
}
