import type { Storage } from '../../src/core/assets/storage/storage.ts';
import type { TestEnv } from './env.ts';

/** A stored object a row names, and what is wrong with it in storage. */
export interface StorageProblem {
  table: string;
  storageKey: string;
  problem: 'missing' | `size ${number}, row says ${number}`;
}

export interface StorageCheck {
  /** Rows naming an object, per table. */
  referenced: Record<string, number>;
  problems: StorageProblem[];
}

/**
 * The backup test's storage check (docs/operations.md "Backups"): every row that names stored bytes
 * (library objects, category icons, approval assets, pending inbounds) finds them in `storage`,
 * with the size the row records. Derived images are a cache rebuilt on demand, so no row names them.
 */
export async function checkStorage(env: TestEnv, storage: Storage): Promise<StorageCheck> {
  const rows = await env.orm.em.fork().execute<{ table: string; storage_key: string; byte_size: string }[]>(
    `select 'stored_objects' as table, storage_key, byte_size::text from stored_objects
     union all select 'category_icons', storage_key, byte_size::text from category_icons
     union all select 'approval_assets', storage_key, byte_size::text from approval_assets
     union all select 'library_pending_inbounds', storage_key, byte_size::text from library_pending_inbounds`,
  );
  const referenced: Record<string, number> = {};
  const problems: StorageProblem[] = [];
  for (const row of rows) {
    referenced[row.table] = (referenced[row.table] ?? 0) + 1;
    const reader = await storage.openReader(row.storage_key);
    if (!reader) {
      problems.push({ table: row.table, storageKey: row.storage_key, problem: 'missing' });
      continue;
    }
    await reader.close();
    if (reader.size !== Number(row.byte_size)) {
      problems.push({ table: row.table, storageKey: row.storage_key, problem: `size ${reader.size}, row says ${Number(row.byte_size)}` });
    }
  }
  return { referenced, problems };
}
