import { ApiKey } from '../../access/api-key.entity.ts';
import { LibraryFile } from '../../assets/files/library-file.entity.ts';

/**
 * Triggers that write the sync feed's change log (product_changes, docs/products.md "Sync feed")
 * in the transaction of the change, whoever makes it: the REST and GraphQL adapters, the CLI and
 * workers alike. Declared on the entities as raw DDL so migration diffs create them once and never
 * drop them; their functions are created by the migration that adds product_changes. The feed
 * owns them: the catalogue's entities list theirs, and declareSyncFeedTriggers adds those on the
 * access and assets tables, so those rooms never import the catalogue.
 *
 * Each is narrow on purpose, so ordinary writes stay cheap: the products trigger fires only for a
 * deletion or an unpublish (its WHEN clause is evaluated without calling the function); the
 * library_files and categories triggers run once per statement and join the old and new rows to
 * find the few whose projected columns changed.
 */

/** A deletion or an unpublish of a live product: one row, at the product's new updatedAt. */
export const PRODUCTS_CHANGE_TRIGGER = {
  name: 'products_change_log',
  timing: 'after' as const,
  events: ['update' as const],
  expression:
    `create trigger "products_change_log" after update of "status", "deleted_at" on "products" for each row ` +
    `when (old.deleted_at is null and (new.deleted_at is not null or (old.status = 'published' and new.status <> 'published'))) ` +
    `execute function product_changes_from_products()`,
};

/**
 * A file whose media object changes (renamed, replaced by another version of its line, sent to or
 * restored from the recycle bin): every live product that references it, or any file of its
 * version line (a hidden version shows the line's cover).
 */
export const LIBRARY_FILES_CHANGE_TRIGGER = {
  name: 'library_files_product_change_log',
  timing: 'after' as const,
  events: ['update' as const],
  expression:
    'create trigger "library_files_product_change_log" after update on "library_files" referencing old table as old_rows new table as new_rows ' +
    'for each statement execute function product_changes_from_files()',
};

/** A category moved or renamed (its path, and its descendants' paths, changed): the live products in those categories. */
export const CATEGORIES_CHANGE_TRIGGER = {
  name: 'categories_product_change_log',
  timing: 'after' as const,
  events: ['update' as const],
  expression:
    'create trigger "categories_product_change_log" after update on "categories" referencing old table as old_rows new table as new_rows ' +
    'for each statement execute function product_changes_from_categories()',
};

/** A key's role changed: the feed compares the role a cycle started from with the current one. */
export const API_KEYS_ROLE_CHANGE_TRIGGER = {
  name: 'api_keys_role_change_log',
  timing: 'after' as const,
  events: ['update' as const],
  expression:
    'create trigger "api_keys_role_change_log" after update of "role" on "api_keys" for each row when (old.role is distinct from new.role) ' +
    'execute function api_key_role_changes_log()',
};

/**
 * Adds the feed's triggers on tables of lower rooms (api_keys, library_files) to their entities'
 * metadata, once, before the ORM reads it (src/core/entities.ts calls it where it lists them).
 */
export function declareSyncFeedTriggers(): void {
  for (const [entity, trigger] of [
    [ApiKey, API_KEYS_ROLE_CHANGE_TRIGGER],
    [LibraryFile, LIBRARY_FILES_CHANGE_TRIGGER],
  ] as const) {
    const triggers = entity.meta.triggers;
    if (!triggers.some((declared) => declared.name === trigger.name)) triggers.push(trigger);
  }
}
