import { lockKey } from '../access/keys.queries.ts';
import { subscriptionsEnabled } from '../access/teams.queries.ts';
import { liveFolderIds } from '../assets/folders/folders.queries.ts';
import { FOLDER_EVENT_TYPE, isMaterialEventType, MATERIAL_EVENT_TYPES, SUBSCRIPTION_OPERATIONS, type SubscriptionOperation } from '../outbox/event-types.ts';
import { type Ctx, requireKey } from '../platform/ctx.ts';
import { DomainError, invalid } from '../platform/errors.ts';
import { type IdempotentOutcome, withIdempotency } from '../platform/idempotency.ts';
import { inTransaction } from '../platform/tx.ts';
import { compileInput } from '../platform/validate.ts';
import { checkCallbackUrl, type UrlChecker } from './callback-url.ts';
import { newSigningSecret } from './signing-secret.ts';
import {
  ApprovalSubscriptionChange,
  type ApprovalSubscriptionView,
  FolderSubscribeRequest,
  type MaterialEventTypeItem,
  MaterialSubscribeRequest,
} from './subscription.schemas.ts';
import {
  activeMaterialEventTypes,
  addApprovalSubscription,
  addFolderSubscriptions,
  addMaterialSubscriptions,
  approvalSubscriptionOf,
  ensureEndpoint,
  removeApprovalSubscriptionsExcept,
  removeSubscriptions,
} from './subscriptions.queries.ts';

const checkFolderSubscribe = compileInput(FolderSubscribeRequest);
const checkMaterialSubscribe = compileInput(MaterialSubscribeRequest);
const checkApprovalChange = compileInput(ApprovalSubscriptionChange);

/** The changes that take an Idempotency-Key (changeOnce), by the name that scopes the key. */
const SUBSCRIPTION_CHANGES = { folder: 'changeFolderSubscription', material: 'changeMaterialSubscription', approval: 'changeApprovalSubscription' } as const;
type SubscriptionChangeResult<K extends keyof typeof SUBSCRIPTION_CHANGES> = Awaited<ReturnType<SubscriptionService[(typeof SUBSCRIPTION_CHANGES)[K]]>>;

function operationOf(value: string | undefined): SubscriptionOperation {
  const operation = value ?? 'ADD';
  if (!(SUBSCRIPTION_OPERATIONS as readonly string[]).includes(operation)) throw invalid('operation', "must be 'ADD' or 'DELETE'", 'unknown_operation');
  return operation as SubscriptionOperation;
}

/**
 * Subscriptions of Areas C and D (spec 4.7, 4.8; docs/events.md). A subscription belongs to the
 * calling key; its callback URL is vetted by the outbound guard before anything is stored, and
 * every event type and folder a key subscribes at one URL share that URL's endpoint and secret.
 */
export class SubscriptionService {
  private readonly urls: UrlChecker;

  constructor(deps: { urls: UrlChecker }) {
    this.urls = deps.urls;
  }

  /** Spec 4.7 folder-subscribe: ADD or DELETE folder content updates for live folders of the key's team (each covers its subtree). */
  async changeFolderSubscription(ctx: Ctx, input: unknown): Promise<true> {
    const key = requireKey(ctx.actor);
    const body = checkFolderSubscribe(input);
    const operation = operationOf(body.operation);
    if ((body.eventType ?? FOLDER_EVENT_TYPE) !== FOLDER_EVENT_TYPE) throw invalid('eventType', `must be ${FOLDER_EVENT_TYPE}`, 'unknown_event_type');
    // in one order, so equal requests at once wait for each other instead of deadlocking
    const folderIds = [...new Set(body.folderIds)].sort((a, b) => a - b);
    const url = operation === 'ADD' ? await checkCallbackUrl(this.urls, body.callbackUrl) : body.callbackUrl;
    return inTransaction(ctx, async (tx) => {
      const live = new Set(await liveFolderIds(tx, folderIds));
      const missing = folderIds.filter((id) => !live.has(id));
      if (missing.length > 0) {
        throw new DomainError(
          'not_found',
          `Folder(s) not found: ${missing.join(', ')}`,
          missing.map((id) => ({ field: 'folderIds', message: `${id} is not a folder of this team` })),
          { subject: 'folder', reason: 'folder_not_found' },
        );
      }
      if (operation === 'DELETE') {
        await removeSubscriptions(tx, key.keyId, url, 'folder', [FOLDER_EVENT_TYPE], folderIds);
        return true as const;
      }
      await addFolderSubscriptions(tx, await ensureEndpoint(tx, key.keyId, url, newSigningSecret()), folderIds);
      return true as const;
    });
  }

  /** Spec 4.7 material-automation-subscribe: ADD or DELETE (by key, callbackUrl and event type) team material events; needs the team capability. */
  async changeMaterialSubscription(ctx: Ctx, input: unknown): Promise<true> {
    const key = requireKey(ctx.actor);
    const body = checkMaterialSubscribe(input);
    const operation = operationOf(body.operation);
    const unknown = body.eventTypes.filter((type) => !isMaterialEventType(type));
    if (unknown.length > 0) throw invalid('eventTypes', `unknown event type(s): ${unknown.join(', ')}`, 'unknown_event_type');
    // in one order, so equal requests at once wait for each other instead of deadlocking
    const eventTypes = [...new Set(body.eventTypes)].sort();
    if (operation === 'ADD') await this.requireCapability(ctx);
    const url = operation === 'ADD' ? await checkCallbackUrl(this.urls, body.callbackUrl) : body.callbackUrl;
    return inTransaction(ctx, async (tx) => {
      if (operation === 'DELETE') {
        await removeSubscriptions(tx, key.keyId, url, 'material', eventTypes, null);
        return true as const;
      }
      await addMaterialSubscriptions(tx, await ensureEndpoint(tx, key.keyId, url, newSigningSecret()), eventTypes);
      return true as const;
    });
  }

  /** Spec 4.7 material-automation-event-types: the five types, each with whether the calling key has an active subscription to it. */
  async materialEventTypes(ctx: Ctx): Promise<MaterialEventTypeItem[]> {
    const key = requireKey(ctx.actor);
    const subscribed = new Set(await activeMaterialEventTypes(ctx, key.keyId));
    return MATERIAL_EVENT_TYPES.map((t) => ({ code: t.code, desc: t.desc, needsConfig: false, subscribed: subscribed.has(t.code) }));
  }

  /** Spec 4.8 subscriptionChange: ADD (callbackUrl required) or DELETE the calling key's approval callbacks; one URL per key. */
  async changeApprovalSubscription(ctx: Ctx, input: unknown): Promise<ApprovalSubscriptionView> {
    const key = requireKey(ctx.actor);
    const body = checkApprovalChange(input);
    const operation = operationOf(body.operation);
    if (operation === 'ADD' && body.callbackUrl === undefined) throw invalid('callbackUrl', 'is required for ADD', 'missing_callback_url');
    const url = operation === 'ADD' ? await checkCallbackUrl(this.urls, body.callbackUrl!) : null;
    await inTransaction(ctx, async (tx) => {
      // One approval callback URL per key: ADD replaces a previous one, DELETE removes it. Changes of
      // one key take turns on its row, so each sees what the one before committed (two ADDs at once
      // left two URLs, or failed on the unique index); an ADD of the URL already stored changes nothing.
      await lockKey(tx, key.keyId);
      const endpointId = url === null ? null : await ensureEndpoint(tx, key.keyId, url, newSigningSecret());
      await removeApprovalSubscriptionsExcept(tx, key.keyId, endpointId);
      if (endpointId === null) return;
      await addApprovalSubscription(tx, endpointId);
    });
    return this.approvalSubscription(ctx);
  }

  /** Spec 4.8 subscriptionQuery: whether the calling key has approval callbacks, where, and in which state. */
  async approvalSubscription(ctx: Ctx): Promise<ApprovalSubscriptionView> {
    const key = requireKey(ctx.actor);
    const row = await approvalSubscriptionOf(ctx, key.keyId);
    if (!row) return { subscribed: false, callbackUrl: null, state: null, disabledReason: null, createdAt: null };
    return { subscribed: true, callbackUrl: row.url, state: row.state, disabledReason: row.disabledReason, createdAt: row.createdAt };
  }

  /**
   * A subscription change with an Idempotency-Key (docs/events.md and docs/approvals.md "Idempotency-Key"): the
   * key is claimed in the change's transaction, so a repeat with the same key and input, concurrent
   * or within 24 hours, answers the first result without changing anything again; other input is
   * refused. Without a key the change runs as before.
   */
  async changeOnce<K extends keyof typeof SUBSCRIPTION_CHANGES>(
    ctx: Ctx,
    change: K,
    input: unknown,
    idempotencyKey: string | undefined,
  ): Promise<IdempotentOutcome<SubscriptionChangeResult<K>>> {
    const run = (scope: Ctx) => this[SUBSCRIPTION_CHANGES[change]](scope, input) as Promise<SubscriptionChangeResult<K>>;
    if (idempotencyKey === undefined) return { body: await run(ctx), etag: null, replayed: false };
    return withIdempotency(ctx, { operation: `subscriptions.${change}`, key: idempotencyKey, input }, async (tx) => ({ body: await run(tx), etag: null }));
  }

  /** Spec 4.7: "the team must have the subscription capability enabled" (`team enable-subscriptions`). */
  private async requireCapability(ctx: Ctx): Promise<void> {
    if (!(await subscriptionsEnabled(ctx, ctx.teamId)))
      throw new DomainError('forbidden', 'This team cannot subscribe to material events; an operator enables it with `team enable-subscriptions`', undefined, {
        reason: 'subscriptions_not_enabled',
      });
  }
}
