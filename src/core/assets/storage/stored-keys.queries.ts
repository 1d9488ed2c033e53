import type { UnitOfWork } from '../../platform/ctx.ts';
import { queryOne, queryRows, textArray } from '../../platform/sql.ts';

/*
 * Statements on every table whose rows name a storage key (stored objects, approval assets,
 * pending inbound, category icons), for the operator's `storage copy` and `storage check`. They
 * look across teams on purpose: bytes are shared by content, and the store is the deployment's.
 */

/** Every referenced key once, with the size its rows record and its content hash (null for icons, which are not content-addressed). */
const REFERENCED_KEYS = `
  select storage_key, max(byte_size)::text as byte_size, min(sha256) as sha256 from (
    select storage_key, byte_size, sha256 from stored_objects
    union all select storage_key, byte_size, sha256 from approval_assets
    union all select storage_key, byte_size, sha256 from library_pending_inbounds
    union all select storage_key, byte_size, null from category_icons
  ) referenced`;

export interface ReferencedKey {
  key: string;
  size: number;
  sha256: string | null;
}

/**
 * Each table that names storage keys, as a statement reading its next rows after a key in byte
 * order (the order S3 lists in), duplicates included (one row per team and content).
 */
const KEYS_AFTER = [
  'select storage_key, byte_size::text as byte_size, sha256 from stored_objects where storage_key collate "C" > ? order by storage_key collate "C" limit ?',
  'select storage_key, byte_size::text as byte_size, sha256 from approval_assets where storage_key collate "C" > ? order by storage_key collate "C" limit ?',
  'select storage_key, byte_size::text as byte_size, sha256 from library_pending_inbounds where storage_key collate "C" > ? order by storage_key collate "C" limit ?',
  'select storage_key, byte_size::text as byte_size, null as sha256 from category_icons where storage_key collate "C" > ? order by storage_key collate "C" limit ?',
];

/**
 * The next referenced keys after `after`, each once, in byte order: every table's next `limit` rows
 * (a top-N read, not a sort of the whole table), merged up to the smallest last key of a table that
 * had more rows than it gave, so no key of any table is passed over. `done` when every table gave
 * all it had.
 */
export async function referencedKeysAfter(op: UnitOfWork, after: string, limit: number): Promise<{ keys: ReferencedKey[]; done: boolean }> {
  let cutoff: string | null = null;
  const rows: { storage_key: string; byte_size: string; sha256: string | null }[] = [];
  for (const sql of KEYS_AFTER) {
    const page = await queryRows<{ storage_key: string; byte_size: string; sha256: string | null }>(op, sql, [after, limit]);
    rows.push(...page);
    if (page.length === limit) {
      const last = page[page.length - 1]!.storage_key;
      if (cutoff === null || last < cutoff) cutoff = last;
    }
  }
  const byKey = new Map<string, ReferencedKey>();
  for (const row of rows) {
    if (cutoff !== null && row.storage_key > cutoff) continue;
    const known = byKey.get(row.storage_key);
    const size = Number(row.byte_size);
    if (!known) byKey.set(row.storage_key, { key: row.storage_key, size, sha256: row.sha256 });
    else {
      known.size = Math.max(known.size, size);
      if (known.sha256 === null) known.sha256 = row.sha256;
    }
  }
  const keys = [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { keys, done: cutoff === null };
}

/** How many keys are referenced and how many bytes they hold. */
export async function referencedTotals(op: UnitOfWork): Promise<{ objects: number; bytes: number }> {
  const row = await queryOne<{ objects: string; bytes: string | null }>(
    op,
    `select count(*)::text as objects, sum(byte_size::bigint)::text as bytes from (${REFERENCED_KEYS} group by storage_key) keys(storage_key, byte_size, sha256)`,
  );
  return { objects: Number(row?.objects ?? 0), bytes: Number(row?.bytes ?? 0) };
}

/** Which of these content hashes a stored object has (derived images are kept for those). */
export async function storedContentAmong(op: UnitOfWork, sha256s: readonly string[]): Promise<Set<string>> {
  if (sha256s.length === 0) return new Set();
  const rows = await queryRows<{ sha256: string }>(op, 'select distinct sha256 from stored_objects where sha256 = any(?::text[])', [textArray(sha256s)]);
  return new Set(rows.map((row) => row.sha256));
}

/** Whether any row of any table names the key (to be asked under the key's lock before removing it). */
export async function isKeyReferencedAnywhere(tx: UnitOfWork, key: string): Promise<boolean> {
  return (await queryOne(tx, `select 1 from (${REFERENCED_KEYS} where storage_key = ? group by storage_key) found`, [key])) !== null;
}

/** Whether a stored object of any team has these bytes. */
export async function isContentStored(tx: UnitOfWork, sha256: string): Promise<boolean> {
  return (await queryOne(tx, 'select 1 from stored_objects where sha256 = ? limit 1', [sha256])) !== null;
}
