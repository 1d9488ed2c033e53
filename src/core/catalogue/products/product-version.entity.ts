import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';

/**
 * A counter per team raised at the commit of any change to the team's products: the memo of exact
 * list totals is keyed by it (product-totals.ts). The trigger function `product_version_bump` is
 * created by the migration that adds this table.
 */
export const ProductVersion = defineEntity({
  name: 'ProductVersion',
  tableName: 'product_versions',
  properties: {
    team: () => p.manyToOne(Team).primary(),
    version: p.bigint().default(1),
  },
});

/**
 * Deferred to the commit, once per transaction and team (the function remembers it in a
 * transaction-local setting), so the version row is locked only while the transaction commits.
 * Declared on the Product entity as raw DDL, so migration diffs create it once and never drop it.
 */
export const PRODUCTS_VERSION_TRIGGER = {
  name: 'products_version_bump',
  timing: 'after' as const,
  events: ['insert' as const, 'update' as const, 'delete' as const],
  expression:
    'create constraint trigger "products_version_bump" after insert or update or delete on "products" deferrable initially deferred for each row execute function product_version_bump()',
};
