import { isEnumType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ROLES } from '../../src/core/access/roles.ts';
import {
  APPROVAL_DECISIONS,
  APPROVAL_STATUSES,
  APPROVER_STATES,
  CALLBACK_EVENT_NAMES,
  CALLBACK_TASK_STATUSES,
  NODE_ROLES,
  SIGN_MODES,
} from '../../src/core/approvals/approval-values.ts';
import { FIELD_TYPES as CUSTOM_FIELD_TYPES } from '../../src/core/assets/custom-metadata/field-types.ts';
import { DERIVATIVE_FORMATS, DERIVATIVE_MODES } from '../../src/core/assets/delivery/derivatives.ts';
import { VALIDITY_STATUSES } from '../../src/core/assets/files/file-validity.service.ts';
import { RECYCLE_ENTRY_KINDS } from '../../src/core/assets/recycle-bin/recycle-bin.schemas.ts';
import { KEYWORD_SEARCH_TYPES, SORT_NAMES, SORT_TYPES } from '../../src/core/assets/search/search.schemas.ts';
import { REMOVE_TYPES } from '../../src/core/assets/versions/version-lines.schemas.ts';
import { ACTIVITY_ACTIONS, RESOURCE_TYPES } from '../../src/core/catalogue/activity/activity-records.schemas.ts';
import { PRODUCT_STATUSES, PRODUCT_TOMBSTONE_REASONS, PRODUCT_VISIBILITIES } from '../../src/core/catalogue/products/product.schemas.ts';
import { HISTORY_ACTIONS } from '../../src/core/catalogue/products/product-history.schemas.ts';
import { SHARE_STATUSES } from '../../src/core/catalogue/products/product-shares.schemas.ts';
import { FIELD_TYPES, SYNC_STRATEGIES, SYSTEM_KEYS } from '../../src/core/catalogue/templates/template.schemas.ts';
import { DELIVERY_STATUSES, ENDPOINT_STATES } from '../../src/core/events/webhook-values.ts';
import { EVENT_TYPES, SUBSCRIPTION_KINDS } from '../../src/core/outbox/event-types.ts';
import { enumValueName } from '../../src/graphql/enums.ts';
import { schema } from '../../src/graphql/index.ts';

/** Every GraphQL enum and the core list it is built from. */
const ENUMS: Record<string, readonly string[]> = {
  ApprovalStatus: APPROVAL_STATUSES,
  ApprovalDecision: APPROVAL_DECISIONS,
  ApprovalApproverStatus: APPROVER_STATES,
  ApprovalSignMode: SIGN_MODES,
  ApprovalCallbackEventName: CALLBACK_EVENT_NAMES,
  ApprovalCallbackTaskStatus: CALLBACK_TASK_STATUSES,
  ApprovalNodeRole: NODE_ROLES,
  ActivityAction: ACTIVITY_ACTIONS,
  ActivityResourceType: RESOURCE_TYPES,
  ProductHistoryAction: HISTORY_ACTIONS,
  KeyRole: ROLES,
  ProductStatus: PRODUCT_STATUSES,
  ProductVisibilityResult: PRODUCT_VISIBILITIES,
  ProductTombstoneReason: PRODUCT_TOMBSTONE_REASONS,
  ProductShareStatus: SHARE_STATUSES,
  RecycleBinEntryKind: RECYCLE_ENTRY_KINDS,
  ValidityStatus: Object.values(VALIDITY_STATUSES),
  ImageResizeMode: DERIVATIVE_MODES,
  ImageFormat: DERIVATIVE_FORMATS,
  AssetSortName: SORT_NAMES,
  SortType: SORT_TYPES,
  KeywordSearchType: KEYWORD_SEARCH_TYPES,
  VersionRemoveType: REMOVE_TYPES,
  CustomFieldType: CUSTOM_FIELD_TYPES,
  TemplateFieldType: FIELD_TYPES,
  TemplateSystemKey: SYSTEM_KEYS,
  TemplateSyncStrategy: SYNC_STRATEGIES,
  WebhookEventType: EVENT_TYPES,
  WebhookSubscriptionKind: SUBSCRIPTION_KINDS,
  WebhookEndpointState: ENDPOINT_STATES,
  WebhookDeliveryStatus: DELIVERY_STATUSES,
};

describe("GraphQL enums are the core's value lists", () => {
  it('names each value in upper snake case', () => {
    expect(['dateRange', 'mainImage', 'view_only', 'not_visible', 'newOnly', 'PENDING', 'DEEP_AND_PRECISE', 'and'].map(enumValueName)).toEqual([
      'DATE_RANGE',
      'MAIN_IMAGE',
      'VIEW_ONLY',
      'NOT_VISIBLE',
      'NEW_ONLY',
      'PENDING',
      'DEEP_AND_PRECISE',
      'AND',
    ]);
  });

  it.each(Object.entries(ENUMS))("%s holds exactly the core list, each value mapped to the core's spelling", (name, values) => {
    const type = schema.getType(name);
    if (!isEnumType(type)) throw new Error(`${name} is not an enum of the schema`);
    const byName = (a: [string, unknown], b: [string, unknown]) => a[0].localeCompare(b[0]);
    expect(
      type
        .getValues()
        .map((v): [string, unknown] => [v.name, v.value])
        .sort(byName),
    ).toEqual(values.map((v): [string, unknown] => [enumValueName(v), v]).sort(byName));
  });

  it('leaves no enum of the schema outside that table', () => {
    const enums = Object.values(schema.getTypeMap())
      .filter((t) => isEnumType(t) && !t.name.startsWith('__'))
      .map((t) => t.name);
    expect(enums.sort()).toEqual(Object.keys(ENUMS).sort());
  });
});
