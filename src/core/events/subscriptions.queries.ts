import { APPROVAL_EVENT_TYPE, EVENT_TYPES, FOLDER_EVENT_TYPE, SUBSCRIPTION_KINDS, type SubscriptionKind } from '../outbox/event-types.ts';
import type { TeamScope, UnitOfWork } from '../platform/ctx.ts';
import { bool, int, jsonList, nullableInt, nullableText, oneOf, text } from '../platform/row-checks.ts';
import { intArray, queryOne, queryRows, textArray } from '../platform/sql.ts';
import { isoSql } from '../platform/timestamps.ts';
import { ENDPOINT_STATES, type EndpointView } from './webhook-values.ts';

/*
 * Statements on webhook endpoints and the subscriptions that point events at them
 * (webhook_endpoints, event_subscriptions). Every statement names the team.
 */

/** The calling key's endpoint for a URL, created with `secret` on first use. */
export async function ensureEndpoint(tx: TeamScope, keyId: number, url: string, secret: string): Promise<number> {
  const created = await queryOne<Record<string, unknown>>(
    tx,
    `insert into webhook_endpoints (team_id, api_key_id, url, secret) values (?, ?, ?, ?)
     on conflict (team_id, api_key_id, url) do nothing returning id`,
    [tx.teamId, keyId, url, secret],
  );
  if (created) return int(created.id, 'id');
  const existing = await queryOne<Record<string, unknown>>(tx, 'select id from webhook_endpoints where team_id = ? and api_key_id = ? and url = ?', [
    tx.teamId,
    keyId,
    url,
  ]);
  return int(existing!.id, 'id');
}

/** Removes a key's subscriptions of one kind at a URL, for the event types given and (when given) only these folders. */
export async function removeSubscriptions(
  tx: TeamScope,
  keyId: number,
  url: string,
  kind: SubscriptionKind,
  eventTypes: readonly string[],
  folderIds: readonly number[] | null,
): Promise<void> {
  await queryRows(
    tx,
    `delete from event_subscriptions s using webhook_endpoints e
      where e.id = s.endpoint_id and e.team_id = ? and e.api_key_id = ? and e.url = ? and s.team_id = ? and s.kind = ?
        and s.event_type = any(?::text[]) and (?::int[] is null or s.folder_id = any(?::int[]))`,
    [tx.teamId, keyId, url, tx.teamId, kind, textArray(eventTypes), folderIds && intArray(folderIds), folderIds && intArray(folderIds)],
  );
}

/** Subscribes an endpoint to content updates of these folders (those it has are kept). */
export async function addFolderSubscriptions(tx: TeamScope, endpointId: number, folderIds: readonly number[]): Promise<void> {
  await queryRows(
    tx,
    `insert into event_subscriptions (team_id, endpoint_id, kind, event_type, folder_id)
     select ?, ?, 'folder', ?, f from unnest(?::int[]) f
     on conflict (endpoint_id, event_type, coalesce(folder_id, 0)) do nothing`,
    [tx.teamId, endpointId, FOLDER_EVENT_TYPE, intArray(folderIds)],
  );
}

/** Subscribes an endpoint to these team material event types (those it has are kept). */
export async function addMaterialSubscriptions(tx: TeamScope, endpointId: number, eventTypes: readonly string[]): Promise<void> {
  await queryRows(
    tx,
    `insert into event_subscriptions (team_id, endpoint_id, kind, event_type)
     select ?, ?, 'material', t from unnest(?::text[]) t
     on conflict (endpoint_id, event_type, coalesce(folder_id, 0)) do nothing`,
    [tx.teamId, endpointId, textArray(eventTypes)],
  );
}

/** The material event types a key subscribes to through an active endpoint. */
export async function activeMaterialEventTypes(scope: TeamScope, keyId: number): Promise<string[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select distinct s.event_type from event_subscriptions s join webhook_endpoints e on e.id = s.endpoint_id and e.team_id = s.team_id
      where s.team_id = ? and e.api_key_id = ? and s.kind = 'material' and e.state = 'active'`,
    [scope.teamId, keyId],
  );
  return rows.map((row) => text(row.event_type, 'event_type'));
}

/** Removes a key's approval subscriptions at any endpoint but `keepEndpointId` (all of them when null). */
export async function removeApprovalSubscriptionsExcept(tx: TeamScope, keyId: number, keepEndpointId: number | null): Promise<void> {
  await queryRows(
    tx,
    `delete from event_subscriptions s using webhook_endpoints e
      where e.id = s.endpoint_id and e.team_id = ? and e.api_key_id = ? and s.team_id = ? and s.kind = 'approval' and s.endpoint_id is distinct from ?::int`,
    [tx.teamId, keyId, tx.teamId, keepEndpointId],
  );
}

/** Subscribes an endpoint to approval callbacks (kept when it has it). */
export async function addApprovalSubscription(tx: TeamScope, endpointId: number): Promise<void> {
  await queryRows(
    tx,
    `insert into event_subscriptions (team_id, endpoint_id, kind, event_type) values (?, ?, 'approval', ?)
     on conflict (endpoint_id, event_type, coalesce(folder_id, 0)) do nothing`,
    [tx.teamId, endpointId, APPROVAL_EVENT_TYPE],
  );
}

/** A key's approval subscription with its endpoint, or null. */
export async function approvalSubscriptionOf(
  scope: TeamScope,
  keyId: number,
): Promise<{ url: string; state: string; disabledReason: string | null; createdAt: string } | null> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `select e.url, e.state, e.disabled_reason, ${isoSql('s.created_at')} as created_at
       from event_subscriptions s join webhook_endpoints e on e.id = s.endpoint_id and e.team_id = s.team_id
      where s.team_id = ? and e.api_key_id = ? and s.kind = 'approval'`,
    [scope.teamId, keyId],
  );
  return (
    row && {
      url: text(row.url, 'url'),
      state: text(row.state, 'state'),
      disabledReason: nullableText(row.disabled_reason, 'disabled_reason'),
      createdAt: text(row.created_at, 'created_at'),
    }
  );
}

/**
 * An endpoint's state as its owner reads it: `disabled` (stored), `unsubscribed` (active, but its
 * last subscription was removed: it gets no new events, while deliveries committed before are
 * still sent, in order, with retries; subscribing again makes it `active`), or `active`.
 */
const ENDPOINT_STATE = `case when e.state = 'active' and not exists (select 1 from event_subscriptions s where s.endpoint_id = e.id and s.team_id = e.team_id)
  then 'unsubscribed' else e.state end`;

const ENDPOINT_COLUMNS = `e.id, e.url, e.api_key_id as "apiKeyId", ${ENDPOINT_STATE} as state, e.disabled_reason as "disabledReason",
  ${isoSql('e.disabled_at')} as "disabledAt", ${isoSql('e.failing_since')} as "failingSince", e.secret,
  ${isoSql('e.previous_secret_expires_at')} as "previousSecretExpiresAt", ${isoSql('e.created_at')} as "createdAt",
  coalesce((select json_agg(json_build_object('kind', s.kind, 'eventType', s.event_type, 'folderId', s.folder_id) order by s.id)
              from event_subscriptions s where s.endpoint_id = e.id and s.team_id = e.team_id), '[]') as subscriptions`;

function endpointOf(row: Record<string, unknown>): EndpointView {
  return {
    id: int(row.id, 'id'),
    url: text(row.url, 'url'),
    apiKeyId: int(row.apiKeyId, 'apiKeyId'),
    state: oneOf(ENDPOINT_STATES, row.state, 'state'),
    disabledReason: nullableText(row.disabledReason, 'disabledReason'),
    disabledAt: nullableText(row.disabledAt, 'disabledAt'),
    failingSince: nullableText(row.failingSince, 'failingSince'),
    secret: text(row.secret, 'secret'),
    previousSecretExpiresAt: nullableText(row.previousSecretExpiresAt, 'previousSecretExpiresAt'),
    createdAt: text(row.createdAt, 'createdAt'),
    subscriptions: jsonList(row.subscriptions, 'subscriptions').map((item, i) => {
      const s = item as Record<string, unknown>;
      return {
        kind: oneOf(SUBSCRIPTION_KINDS, s.kind, `subscriptions[${i}].kind`),
        eventType: oneOf(EVENT_TYPES, s.eventType, `subscriptions[${i}].eventType`),
        folderId: nullableInt(s.folderId, `subscriptions[${i}].folderId`),
      };
    }),
  };
}

/** The team's endpoints in id order; only this key's unless `keyId` is null. */
export async function listEndpoints(scope: TeamScope, keyId: number | null): Promise<EndpointView[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${ENDPOINT_COLUMNS} from webhook_endpoints e where e.team_id = ? and (?::int is null or e.api_key_id = ?) order by e.id`,
    [scope.teamId, keyId, keyId],
  );
  return rows.map(endpointOf);
}

/** One endpoint of the team (of this key unless `keyId` is null), or null. */
export async function findEndpoint(scope: TeamScope, keyId: number | null, endpointId: number): Promise<EndpointView | null> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `select ${ENDPOINT_COLUMNS} from webhook_endpoints e where e.team_id = ? and e.id = ? and (?::int is null or e.api_key_id = ?)`,
    [scope.teamId, endpointId, keyId, keyId],
  );
  return row && endpointOf(row);
}

/** How long a rotated-out secret keeps signing (Standard Webhooks allows an overlap). */
const ROTATION_OVERLAP = '24 hours';

/** Gives an endpoint a new secret; the previous one keeps signing for 24 hours so receivers can switch without losing a delivery. */
export async function rotateEndpointSecret(tx: TeamScope, endpointId: number, secret: string): Promise<void> {
  await queryRows(
    tx,
    `update webhook_endpoints set previous_secret = secret, previous_secret_expires_at = now() + interval '${ROTATION_OVERLAP}', secret = ?, updated_at = now()
      where id = ? and team_id = ?`,
    [secret, endpointId, tx.teamId],
  );
}

/** Makes an endpoint active again with its run of failures cleared. */
export async function enableEndpoint(tx: TeamScope, endpointId: number): Promise<void> {
  await queryRows(
    tx,
    `update webhook_endpoints set state = 'active', disabled_reason = null, disabled_at = null, failing_since = null, updated_at = now() where id = ? and team_id = ?`,
    [endpointId, tx.teamId],
  );
}

/** Starts or continues the endpoint's run of failures; true when it has lasted `days` days. */
export async function noteEndpointFailure(tx: UnitOfWork, endpointId: number, days: number): Promise<boolean> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update webhook_endpoints set failing_since = coalesce(failing_since, now()) where id = ?
     returning failing_since <= now() - ?::int * interval '1 day' as expired`,
    [endpointId, days],
  );
  return row !== null && bool(row.expired, 'expired');
}

/** Disables an active endpoint, saying why. */
export async function disableEndpoint(tx: UnitOfWork, endpointId: number, reason: string): Promise<void> {
  await queryRows(
    tx,
    `update webhook_endpoints set state = 'disabled', disabled_reason = ?, disabled_at = now(), updated_at = now() where id = ? and state = 'active'`,
    [reason, endpointId],
  );
}
