import { ROLES } from '../../core/access/roles.ts';
import { ACTIVITY_ACTIONS, type ActivityAction, type ActivityItem, RESOURCE_TYPES } from '../../core/catalogue/activity/activity-records.schemas.ts';
import { HISTORY_ACTIONS, type ProductHistoryItem } from '../../core/catalogue/products/product-history.schemas.ts';
import { collectPage } from '../../core/platform/answer-budget.ts';
import { withoutNulls } from '../args.ts';
import { builder } from '../builder.ts';
import { pageCost } from '../costs.ts';
import { enumFromCore, storedValue } from '../enums.ts';
import { type ObjectFieldBuilder, pageArgs, pageQuery, pageType } from '../shapes.ts';
import { JsonRef } from './json.ts';
import { KeyRoleEnum } from './key-role.ts';

/** What each action means, for both enums (a product's history has the product actions only). */
const ACTION_MEANINGS: Record<ActivityAction, string> = {
  created: 'Created.',
  updated: 'Changed.',
  published: 'A product was published.',
  unpublished: 'A product went back to draft.',
  deleted: 'Deleted (soft-deleted: its id stays reserved).',
  template_upgraded: 'A product moved to a newer version of its template.',
  revoked: 'A share was revoked.',
  purged: 'Activity records were purged.',
};

const ActivityActionEnum = enumFromCore('ActivityAction', {
  description: 'What a catalogue write did to its resource.',
  values: ACTIVITY_ACTIONS,
  describe: ACTION_MEANINGS,
});

export const HistoryActionEnum = enumFromCore('ProductHistoryAction', {
  description: 'What a change did to a product.',
  values: HISTORY_ACTIONS,
  describe: ACTION_MEANINGS,
});

const ResourceTypeEnum = enumFromCore('ActivityResourceType', {
  description: 'The kind of resource a catalogue write touched.',
  values: RESOURCE_TYPES,
  describe: {
    brand: 'A brand.',
    category: 'A category.',
    template: 'An information template.',
    product: 'A product.',
    share: 'A product share.',
    download: 'A product download (a ZIP of its media).',
    activity_records: 'The activity records themselves (a purge).',
  },
});

/** Who made a write and when, as a history entry and an activity record both tell it; `noun` is what the type calls the write. */
function writerFields<Shape extends ProductHistoryItem | ActivityItem>(t: ObjectFieldBuilder<Shape>, noun: 'change' | 'write') {
  return {
    at: t.string({ description: `When the ${noun} committed (RFC 3339, UTC, microseconds).`, resolve: (item) => item.at }),
    actor: t.string({ description: '`key:<id>`, `member:<id>` or `system:<job>`.', resolve: (item) => item.actor }),
    keyId: t.int({ nullable: true, description: `The API key of the ${noun}; null without one.`, resolve: (item) => item.keyId }),
    role: t.field({
      type: KeyRoleEnum,
      nullable: true,
      description: "That key's role at the time.",
      resolve: (item) => (item.role === null ? null : storedValue(ROLES, item.role)),
    }),
    requestId: t.string({ nullable: true, description: 'The request id (X-Request-Id).', resolve: (item) => item.requestId }),
  };
}

const HistoryEntryRef = builder.objectRef<ProductHistoryItem>('ProductHistoryEntry').implement({
  description: 'One change of a product (REST: GET /v1/products/{id}/history).',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Entry id (a decimal string), increasing with time.' }),
    action: t.field({ type: HistoryActionEnum, description: 'What the change did.', resolve: (entry) => storedValue(HISTORY_ACTIONS, entry.action) }),
    ...writerFields(t, 'change'),
    changes: t.field({
      type: JsonRef,
      description: 'The changed fields: `[{field, before, after}]`, template values as `templateFields.<id>`, media as file-path ID lists.',
      resolve: (e) => e.changes,
    }),
  }),
});

const ActivityRef = builder.objectRef<ActivityItem>('ActivityRecord').implement({
  description: 'One catalogue write of the team (REST: GET /v1/activity-records).',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Record id (a decimal string), increasing with time.' }),
    resourceType: t.field({
      type: ResourceTypeEnum,
      description: 'What kind of resource was written.',
      resolve: (record) => storedValue(RESOURCE_TYPES, record.resourceType),
    }),
    resourceId: t.exposeString('resourceId', { description: "The resource's id as a string." }),
    action: t.field({ type: ActivityActionEnum, description: 'What the write did.', resolve: (record) => storedValue(ACTIVITY_ACTIONS, record.action) }),
    ...writerFields(t, 'write'),
  }),
});

const HistoryPageRef = pageType('ProductHistoryPage', HistoryEntryRef, {
  description: "A page of a product's history, newest first.",
  items: 'entries',
  pagination: 'Ordinary paging.',
});

const ActivityPageRef = pageType('ActivityRecordPage', ActivityRef, {
  description: 'A page of activity records, newest first.',
  items: 'records',
  pagination: 'Ordinary paging.',
});

builder.queryFields((t) => ({
  productHistory: t.field({
    type: HistoryPageRef,
    description: "A product's history, newest first (REST: GET /v1/products/{id}/history); visible when the product is. Errors: not_found.",
    args: {
      id: t.arg.int({ required: true, description: 'Product id.' }),
      ...pageArgs(t),
    },
    complexity: pageCost,
    resolve: async (_root, args, gql) => collectPage(gql.ctx, await gql.core.catalogue.products.history(gql.ctx, args.id, pageQuery(args))),
  }),
  activityRecords: t.field({
    type: ActivityPageRef,
    description: "The team's catalogue writes, newest first (manage role; REST: GET /v1/activity-records). Errors: forbidden, validation_failed.",
    args: {
      resourceType: t.arg({ type: ResourceTypeEnum, description: 'Only writes to this kind of resource.' }),
      resourceId: t.arg.string({ description: 'One resource (with resourceType).' }),
      actorKeyId: t.arg.int({ description: 'Writes made with this API key.' }),
      from: t.arg.string({ description: 'At or after this time (RFC 3339).' }),
      to: t.arg.string({ description: 'Before this time (RFC 3339).' }),
      ...pageArgs(t),
    },
    complexity: pageCost,
    resolve: (_root, args, gql) => gql.core.catalogue.activity.page(gql.ctx, withoutNulls(args)),
  }),
}));
