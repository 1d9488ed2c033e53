import { Migration } from '@mikro-orm/migrations';

/**
 * The products sync feed's change log (docs/products.md "Sync feed"): product_changes, written by
 * triggers in the transaction of each deletion, unpublish and linked-entity change (media file,
 * version line, category path), and api_key_role_changes, written by a trigger on role changes.
 * Nothing is backfilled: the feed reports changes from now on (earlier ones were never logged).
 */
export class Migration20261126234022 extends Migration {
  override name = 'Migration20261126234022';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "api_key_role_changes" ("id" bigserial primary key, "team_id" int not null, "key_id" int not null, "from_role" varchar(16) not null, "to_role" varchar(16) not null, "at" timestamptz not null default now());`,
    );
    this.addSql(`create index "api_key_role_changes_key_at" on "api_key_role_changes" ("team_id", "key_id", "at");`);

    this.addSql(
      `create table "product_changes" ("id" bigserial primary key, "team_id" int not null, "product_id" int not null, "kind" smallint not null, "was_published" boolean not null default false, "at" timestamptz not null);`,
    );
    this.addSql(`create unique index "product_changes_feed_order" on "product_changes" ("team_id", "at", "product_id", "kind");`);

    this.addSql(`alter table "api_key_role_changes" add constraint "api_key_role_changes_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(`alter table "api_key_role_changes" add constraint "api_key_role_changes_key_id_foreign" foreign key ("key_id") references "api_keys" ("id");`);
    this.addSql(`alter table "product_changes" add constraint "product_changes_team_id_foreign" foreign key ("team_id") references "teams" ("id");`);
    this.addSql(`alter table "product_changes" add constraint "product_changes_product_id_foreign" foreign key ("product_id") references "products" ("id");`);

    // kind 1 deleted (with whether it was published), 2 unpublished; at the product's new updatedAt,
    // so the entry sorts exactly where the product's own last update did
    this.addSql(`create or replace function product_changes_from_products() returns trigger language plpgsql as $$
      begin
        insert into product_changes (team_id, product_id, kind, was_published, at)
        values (new.team_id, new.id, case when new.deleted_at is not null then 1 else 2 end, old.status = 'published', new.updated_at)
        on conflict do nothing;
        return null;
      end $$;`);

    // kind 3 linked: files whose media object changed (name, type, size, dimensions, duration,
    // bytes, deletion or restore, version line), widened to every file of their version lines (a
    // hidden version shows the line's cover), then the live products referencing any of them
    // (the GIN index on media_file_ids). clock_timestamp(), as product writes use for updatedAt.
    this.addSql(`create or replace function product_changes_from_files() returns trigger language plpgsql as $$
      begin
        with changed as (
          select n.team_id, n.id, n.version_line_id as line, o.version_line_id as old_line
            from new_rows n join old_rows o on o.id = n.id
           where (o.name, o.mime_type, o.byte_size, o.width, o.height, o.duration_ms, o.object_id, o.deleted_at, o.version_line_id)
                 is distinct from (n.name, n.mime_type, n.byte_size, n.width, n.height, n.duration_ms, n.object_id, n.deleted_at, n.version_line_id)
        ), affected as (
          select team_id, id from changed
          union
          select f.team_id, f.id from changed c join library_files f on f.team_id = c.team_id and f.version_line_id in (c.line, c.old_line)
        ), per_team as (
          select team_id, array_agg(id) as ids from affected group by team_id
        )
        insert into product_changes (team_id, product_id, kind, at)
        select p.team_id, p.id, 3, clock_timestamp()
          from per_team t join products p on p.team_id = t.team_id and p.deleted_at is null and p.media_file_ids && t.ids
        on conflict do nothing;
        return null;
      end $$;`);

    // kind 3 linked: categories whose path changed (a move or rename rewrites the whole subtree's paths)
    this.addSql(`create or replace function product_changes_from_categories() returns trigger language plpgsql as $$
      begin
        insert into product_changes (team_id, product_id, kind, at)
        select p.team_id, p.id, 3, clock_timestamp()
          from new_rows n join old_rows o on o.id = n.id
          join products p on p.team_id = n.team_id and p.category_id = n.id and p.deleted_at is null
         where (o.parent_id, o.path_key) is distinct from (n.parent_id, n.path_key)
        on conflict do nothing;
        return null;
      end $$;`);

    this.addSql(`create or replace function api_key_role_changes_log() returns trigger language plpgsql as $$
      begin
        insert into api_key_role_changes (team_id, key_id, from_role, to_role, at) values (new.team_id, new.id, old.role, new.role, clock_timestamp());
        return null;
      end $$;`);

    this.addSql(
      `create trigger "library_files_product_change_log" after update on "library_files" referencing old table as old_rows new table as new_rows for each statement execute function product_changes_from_files();`,
    );
    this.addSql(
      `create trigger "categories_product_change_log" after update on "categories" referencing old table as old_rows new table as new_rows for each statement execute function product_changes_from_categories();`,
    );
    this.addSql(
      `create trigger "api_keys_role_change_log" after update of "role" on "api_keys" for each row when (old.role is distinct from new.role) execute function api_key_role_changes_log();`,
    );
    this.addSql(
      `create trigger "products_change_log" after update of "status", "deleted_at" on "products" for each row when (old.deleted_at is null and (new.deleted_at is not null or (old.status = 'published' and new.status <> 'published'))) execute function product_changes_from_products();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "api_keys_role_change_log" on "api_keys";`);
    this.addSql(`drop trigger if exists "categories_product_change_log" on "categories";`);
    this.addSql(`drop trigger if exists "library_files_product_change_log" on "library_files";`);
    this.addSql(`drop trigger if exists "products_change_log" on "products";`);
    this.addSql(`drop function if exists api_key_role_changes_log();`);
    this.addSql(`drop function if exists product_changes_from_categories();`);
    this.addSql(`drop function if exists product_changes_from_files();`);
    this.addSql(`drop function if exists product_changes_from_products();`);
    this.addSql(`drop table if exists "api_key_role_changes" cascade;`);
    this.addSql(`drop table if exists "product_changes" cascade;`);
  }
}
