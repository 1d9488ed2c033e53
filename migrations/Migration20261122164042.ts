import { Migration } from '@mikro-orm/migrations';

export class Migration20261122164042 extends Migration {
  override name = 'Migration20261122164042';

  override up(): void | Promise<void> {
    this.addSql(`create table "product_versions" ("team_id" int not null, "version" bigint not null default '1', primary key ("team_id"));`);

    // the memo of exact product list totals is keyed by this version (src/core/catalogue/product-totals.ts): raised once per
    // transaction and team, at commit (the trigger is deferred), so the version row is locked only while the transaction commits
    this.addSql(`create or replace function product_version_bump() returns trigger language plpgsql as $$
      declare
        team int := case when tg_op = 'DELETE' then old.team_id else new.team_id end;
      begin
        if current_setting('shelf.product_bumped_' || team, true) is distinct from '1' then
          insert into product_versions (team_id, version) values (team, 1)
            on conflict (team_id) do update set version = product_versions.version + 1;
          perform set_config('shelf.product_bumped_' || team, '1', true);
        end if;
        return null;
      end $$;`);
    this.addSql(
      `create constraint trigger "products_version_bump" after insert or update or delete on "products" deferrable initially deferred for each row execute function product_version_bump();`,
    );

    this.addSql(
      `alter table "product_versions" add constraint "product_versions_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "products_version_bump" on "products";`);
    this.addSql(`drop function if exists product_version_bump();`);
    this.addSql(`drop table if exists "product_versions" cascade;`);
  }
}
