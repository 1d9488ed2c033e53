import type { TeamScope, UnitOfWork } from '../../platform/ctx.ts';
import { bool, float, int, intList, nullableInt, nullableText, oneOf, text } from '../../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import { type ProductShareView, SHARE_STATUSES, type ShareAccessRow } from './product-shares.schemas.ts';

/* Statements on product shares (product_shares). Every statement names the team, but the lookup by token (the token is the credential). */

const SHARE_COLUMNS = `s.id, s.product_id as "productId", s.team_id as "teamId", s.nonce,
  case when s.revoked_at is not null then 'revoked' when s.expires_at <= now() then 'expired' else 'active' end as status,
  ${isoSql('s.expires_at')} as "expiresAt", s.password_hash is not null as "passwordProtected", s.file_ids as "assetIds",
  s.allow_download as "allowDownload", ${isoSql('s.created_at')} as "createdAt", ${isoSql('s.revoked_at')} as "revokedAt",
  s.actor, s.actor_key_id as "keyId", s.actor_role as role`;

/** A share as stored, with what its link is derived from (team and nonce) instead of the link. */
export type ShareRow = Omit<ProductShareView, 'url'> & { teamId: number; nonce: string };

function shareOf(row: Record<string, unknown>): ShareRow {
  return {
    id: int(row.id, 'id'),
    productId: int(row.productId, 'productId'),
    teamId: int(row.teamId, 'teamId'),
    nonce: text(row.nonce, 'nonce'),
    status: oneOf(SHARE_STATUSES, row.status, 'status'),
    expiresAt: text(row.expiresAt, 'expiresAt'),
    passwordProtected: bool(row.passwordProtected, 'passwordProtected'),
    assetIds: row.assetIds === null ? null : intList(row.assetIds, 'assetIds'),
    allowDownload: bool(row.allowDownload, 'allowDownload'),
    createdAt: text(row.createdAt, 'createdAt'),
    revokedAt: nullableText(row.revokedAt, 'revokedAt'),
    actor: text(row.actor, 'actor'),
    keyId: nullableInt(row.keyId, 'keyId'),
    role: nullableText(row.role, 'role'),
  };
}

/** Draws the id of a share to be inserted (its link's token is derived from it, so it comes first). */
export async function nextShareId(tx: UnitOfWork): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(tx, `select nextval(pg_get_serial_sequence('product_shares', 'id'))::int as id`);
  return int(row!.id, 'id');
}

/** A share as written: its id drawn by nextShareId, the hashes of its token and password, and who created it (as its record names them). */
export interface NewShare {
  id: number;
  productId: number;
  nonce: string;
  tokenHash: string;
  passwordHash: string | null;
  fileIds: readonly number[] | null;
  allowDownload: boolean;
  showsDrafts: boolean;
  expiresAt: string;
  actor: string;
  keyId: number | null;
  role: string | null;
}

/** Writes a share of the team. */
export async function insertShare(tx: TeamScope, share: NewShare): Promise<void> {
  await queryRows(
    tx,
    `insert into product_shares (id, team_id, product_id, nonce, token_hash, password_hash, file_ids, allow_download, shows_drafts, expires_at, actor, actor_key_id, actor_role)
     values (?, ?, ?, ?, ?, ?, ?::int[], ?, ?, ?::timestamptz, ?, ?, ?)`,
    [
      share.id,
      tx.teamId,
      share.productId,
      share.nonce,
      share.tokenHash,
      share.passwordHash,
      share.fileIds && intArray(share.fileIds),
      share.allowDownload,
      share.showsDrafts,
      share.expiresAt,
      share.actor,
      share.keyId,
      share.role,
    ],
  );
}

/** How many shares a product has. */
export async function countShares(scope: TeamScope, productId: number): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(scope, 'select count(*)::int as n from product_shares where team_id = ? and product_id = ?', [
    scope.teamId,
    productId,
  ]);
  return int(row!.n, 'n');
}

/** A page of a product's shares, newest first. */
export async function sharesPage(scope: TeamScope, productId: number, limit: number, offset: number): Promise<ShareRow[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${SHARE_COLUMNS} from product_shares s where s.team_id = ? and s.product_id = ? order by s.id desc limit ? offset ?`,
    [scope.teamId, productId, limit, offset],
  );
  return rows.map(shareOf);
}

/** A share of a product of the team, or null. */
export async function findShare(scope: TeamScope, productId: number, shareId: number): Promise<ShareRow | null> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `select ${SHARE_COLUMNS} from product_shares s where s.id = ? and s.team_id = ? and s.product_id = ?`,
    [shareId, scope.teamId, productId],
  );
  return row && shareOf(row);
}

/** Revokes a share of a product of the team; false when there is no such share or it was revoked already. */
export async function revokeShare(tx: TeamScope, productId: number, shareId: number): Promise<boolean> {
  const revoked = await queryOne(
    tx,
    'update product_shares set revoked_at = now() where id = ? and team_id = ? and product_id = ? and revoked_at is null returning id',
    [shareId, tx.teamId, productId],
  );
  return revoked !== null;
}

/** The share whose token hashes to `tokenHash`, of any team; null when there is none. */
export async function shareByTokenHash(op: UnitOfWork, tokenHash: string): Promise<ShareAccessRow | null> {
  const row = await queryOne<Record<string, unknown>>(
    op,
    `select id, team_id as "teamId", product_id as "productId", password_hash as "passwordHash", file_ids as "fileIds",
            allow_download as "allowDownload", shows_drafts as "showsDrafts",
            (extract(epoch from expires_at) * 1000)::float8 as "expiresAtMs", revoked_at is not null as revoked
       from product_shares where token_hash = ?`,
    [tokenHash],
  );
  return (
    row && {
      id: int(row.id, 'id'),
      teamId: int(row.teamId, 'teamId'),
      productId: int(row.productId, 'productId'),
      passwordHash: nullableText(row.passwordHash, 'passwordHash'),
      fileIds: row.fileIds === null ? null : intList(row.fileIds, 'fileIds'),
      allowDownload: bool(row.allowDownload, 'allowDownload'),
      showsDrafts: bool(row.showsDrafts, 'showsDrafts'),
      expiresAtMs: float(row.expiresAtMs, 'expiresAtMs'),
      revoked: bool(row.revoked, 'revoked'),
    }
  );
}
