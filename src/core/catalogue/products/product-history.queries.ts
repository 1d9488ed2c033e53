import type { SizedRow } from '../../platform/answer-budget.ts';
import type { TeamScope } from '../../platform/ctx.ts';
import { bigintText, int, jsonList, nullableInt, nullableText, text } from '../../platform/row-checks.ts';
import { queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import type { FieldChange, ProductHistoryItem } from './product-history.schemas.ts';

/* Statements on product history entries (product_history). Every statement names the team. */

/** A history entry as written: who made the change (as its record names them) and the fields it changed. */
export interface HistoryEntry {
  productId: number;
  action: string;
  actor: string;
  keyId: number | null;
  role: string | null;
  requestId: string | null;
  changes: FieldChange[];
}

/** Writes a history entry. */
export async function insertHistoryEntry(tx: TeamScope, entry: HistoryEntry): Promise<void> {
  await queryRows(
    tx,
    `insert into product_history (team_id, product_id, action, actor, actor_key_id, actor_role, request_id, changes) values (?, ?, ?, ?, ?, ?, ?, ?::jsonb)`,
    [tx.teamId, entry.productId, entry.action, entry.actor, entry.keyId, entry.role, entry.requestId, JSON.stringify(entry.changes)],
  );
}

/** How many history entries a product has. */
export async function countHistory(scope: TeamScope, productId: number): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(scope, 'select count(*)::int as n from product_history where team_id = ? and product_id = ?', [
    scope.teamId,
    productId,
  ]);
  return int(row!.n, 'n');
}

function itemOf(row: Record<string, unknown>): ProductHistoryItem {
  return {
    id: bigintText(row.id, 'id'),
    action: text(row.action, 'action'),
    at: text(row.at, 'at'),
    actor: text(row.actor, 'actor'),
    keyId: nullableInt(row.keyId, 'keyId'),
    role: nullableText(row.role, 'role'),
    requestId: nullableText(row.requestId, 'requestId'),
    changes: jsonList(row.changes, 'changes') as ProductHistoryItem['changes'],
  };
}

/** A page of a product's history entries, newest first: their ids and the stored size of their changes (read by historyEntriesByIds, batch by batch). */
export async function sizedHistoryPage(scope: TeamScope, productId: number, limit: number, offset: number): Promise<SizedRow<string>[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select id::text, octet_length(changes::text) as bytes from product_history where team_id = ? and product_id = ? order by id desc limit ? offset ?`,
    [scope.teamId, productId, limit, offset],
  );
  return rows.map((row) => ({ id: bigintText(row.id, 'id'), storedBytes: int(row.bytes, 'bytes') }));
}

/** History entries of a product among `ids`, in no particular order. */
export async function historyEntriesByIds(scope: TeamScope, productId: number, ids: readonly string[]): Promise<ProductHistoryItem[]> {
  if (ids.length === 0) return [];
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select id::text, action, ${isoSql('created_at')} as at, actor, actor_key_id as "keyId", actor_role as role, request_id as "requestId", changes
       from product_history where team_id = ? and product_id = ? and id = any(?::bigint[])`,
    [scope.teamId, productId, `{${ids.join(',')}}`],
  );
  return rows.map(itemOf);
}
