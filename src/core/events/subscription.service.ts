import { randomBytes } from 'node:crypto';
import { requireKey, type Ctx } from '../platform/ctx.ts';
import { DomainError, invalid } from '../platform/errors.ts';
import { withIdempotency, type IdempotentOutcome } from '../platform/idempotency.ts';
import { intArray, queryOne, queryRows, textArray } from '../platform/sql.ts';
import { isoSql } from '../platform/timestamps.ts';
import { inTransaction } from '../platform/tx.ts';
import { compileInput } from '../platform/validate.ts';
import { checkCallbackUrl, type UrlChecker } from './callback-url.ts';
import {
  APPROVAL_EVENT_TYPE,
  FOLDER_EVENT_TYPE,
  MATERIAL_EVENT_TYPES,
  SUBSCRIPTION_OPERATIONS,
  isMaterialEventType,
  type SubscriptionOperation,
} from './event-types.ts';
import {
  ApprovalSubscriptionChange,
  FolderSubscribeRequest,
  MaterialSubscribeRequest,
  type ApprovalSubscriptionView,
  type MaterialEventTypeItem,
} from './subscription.schemas.ts';

const checkFolderSubscribe = compileInput(FolderSubscribeRequest);
const checkMaterialSubscribe = compileInput(MaterialSubscribeRequest);
const checkApprovalChange = compileInput(ApprovalSubscriptionChange);

/** The changes that take an Idempotency-Key (changeOnce), by the name that scopes the key. */
const SUBSCRIPTION_CHANGES = { folder: 'changeFolderSubscription', material: 'changeMaterialSubscription', approval: 'changeApprovalSubscription' } as const;
type SubscriptionChangeResult<K extends keyof typeof SUBSCRIPTION_CHANGES> = Awaited<ReturnType<SubscriptionService[(typeof SUBSCRIPTION_CHANGES)[K]]>>;

/** A new endpoint's signing secret, in the Standard Webhooks form `whsec_<base64>`. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function operationOf(value: string | undefined): SubscriptionOperation {
  const operation = value ?? 'ADD';
  if (!(SUBSCRIPTION_OPERATIONS as readonly string[]).includes(operation)) throw invalid('operation', "must be 'ADD' or 'DELETE'", 'unknown_operation');
  return operation as SubscriptionOperation;
}

/** The calling key's endpoint for a URL, created with a fresh secret on first use. */
async function ensureEndpoint(tx: Ctx, keyId: number, url: string): Promise<number> {
  const created = await queryOne<{ id: number }>(
    tx,
    `insert into webhook_endpoints (team_id, api_key_id, url, secret) values (?, ?, ?, ?)
     on conflict (team_id, api_key_id, url) do nothing returning id`,
    [tx.teamId, keyId, url, newSigningSecret()],
  );
  if (created) return created.id;
  const existing = await queryOne<{ id: number }>(tx, 'select id from webhook_endpoints where team_id = ? and api_key_id = ? and url = ?', [
    tx.teamId,
    keyId,
    url,
  ]);
  return existing!.id;
}

async function removeSubscriptions(tx: Ctx, keyId: number, url: string, kind: string, eventTypes: string[], folderIds: number[] | null): Promise<void> {
  await queryRows(
    tx,
    `delete from event_subscriptions s using webhook_endpoints e
      where e.id = s.endpoint_id and e.team_id = ? and e.api_key_id = ? and e.url = ? and s.team_id = ? and s.kind = ?
        and s.event_type = any(?::text[]) and (?::int[] is null or s.folder_id = any(?::int[]))`,
    [tx.teamId, keyId, url, tx.teamId, kind, textArray(eventTypes), folderIds && intArray(folderIds), folderIds && intArray(folderIds)],
  );
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
      const live = await queryRows<{ id: number }>(tx, 'select id from library_folders where team_id = ? and id = any(?::int[]) and deleted_at is null', [
        tx.teamId,
        intArray(folderIds),
      ]);
      const missing = folderIds.filter((id) => !live.some((row) => row.id === id));
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
      const endpointId = await ensureEndpoint(tx, key.keyId, url);
      await queryRows(
        tx,
        `insert into event_subscriptions (team_id, endpoint_id, kind, event_type, folder_id)
         select ?, ?, 'folder', ?, f from unnest(?::int[]) f
         on conflict (endpoint_id, event_type, coalesce(folder_id, 0)) do nothing`,
        [tx.teamId, endpointId, FOLDER_EVENT_TYPE, intArray(folderIds)],
      );
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
      const endpointId = await ensureEndpoint(tx, key.keyId, url);
      await queryRows(
        tx,
        `insert into event_subscriptions (team_id, endpoint_id, kind, event_type)
         select ?, ?, 'material', t from unnest(?::text[]) t
         on conflict (endpoint_id, event_type, coalesce(folder_id, 0)) do nothing`,
        [tx.teamId, endpointId, textArray(eventTypes)],
      );
      return true as const;
    });
  }

  /** Spec 4.7 material-automation-event-types: the five types, each with whether the calling key has an active subscription to it. */
  async materialEventTypes(ctx: Ctx): Promise<MaterialEventTypeItem[]> {
    const key = requireKey(ctx.actor);
    const rows = await queryRows<{ event_type: string }>(
      ctx,
      `select distinct s.event_type from event_subscriptions s join webhook_endpoints e on e.id = s.endpoint_id and e.team_id = s.team_id
        where s.team_id = ? and e.api_key_id = ? and s.kind = 'material' and e.state = 'active'`,
      [ctx.teamId, key.keyId],
    );
    const subscribed = new Set(rows.map((r) => r.event_type));
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
      await queryRows(tx, 'select 1 from api_keys where id = ? for no key update', [key.keyId]);
      const endpointId = url === null ? null : await ensureEndpoint(tx, key.keyId, url);
      await queryRows(
        tx,
        `delete from event_subscriptions s using webhook_endpoints e
          where e.id = s.endpoint_id and e.team_id = ? and e.api_key_id = ? and s.team_id = ? and s.kind = 'approval' and s.endpoint_id is distinct from ?::int`,
        [tx.teamId, key.keyId, tx.teamId, endpointId],
      );
      if (endpointId === null) return;
      await queryRows(
        tx,
        `insert into event_subscriptions (team_id, endpoint_id, kind, event_type) values (?, ?, 'approval', ?)
         on conflict (endpoint_id, event_type, coalesce(folder_id, 0)) do nothing`,
        [tx.teamId, endpointId, APPROVAL_EVENT_TYPE],
      );
    });
    return this.approvalSubscription(ctx);
  }

  /** Spec 4.8 subscriptionQuery: whether the calling key has approval callbacks, where, and in which state. */
  async approvalSubscription(ctx: Ctx): Promise<ApprovalSubscriptionView> {
    const key = requireKey(ctx.actor);
    const row = await queryOne<{ url: string; state: string; disabled_reason: string | null; created_at: string }>(
      ctx,
      `select e.url, e.state, e.disabled_reason, ${isoSql('s.created_at')} as created_at
         from event_subscriptions s join webhook_endpoints e on e.id = s.endpoint_id and e.team_id = s.team_id
        where s.team_id = ? and e.api_key_id = ? and s.kind = 'approval'`,
      [ctx.teamId, key.keyId],
    );
    if (!row) return { subscribed: false, callbackUrl: null, state: null, disabledReason: null, createdAt: null };
    return { subscribed: true, callbackUrl: row.url, state: row.state, disabledReason: row.disabled_reason, createdAt: row.created_at };
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
    const team = await queryOne<{ enabled: boolean }>(ctx, 'select subscriptions_enabled as enabled from teams where id = ?', [ctx.teamId]);
    if (!team?.enabled)
      throw new DomainError('forbidden', 'This team cannot subscribe to material events; an operator enables it with `team enable-subscriptions`', undefined, {
        reason: 'subscriptions_not_enabled',
      });
  }
}
