import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp, nullableTimestamp } from '../../platform/timestamps.ts';
import { TemplateVersion } from './template-version.entity.ts';

/**
 * An information template (spec 2.4). The row holds the metadata and the library-default
 * designation; the definition (groups and fields) lives only in the immutable version that
 * `currentVersion` names, so a template can never change without a new version (spec 3.3).
 */
export const ProductInfoTemplate = defineEntity({
  name: 'ProductInfoTemplate',
  tableName: 'product_info_templates',
  indexes: [
    // listTemplates: live templates of a team, createdAt descending then id
    {
      name: 'product_info_templates_live_list',
      expression: 'create index "product_info_templates_live_list" on "product_info_templates" ("team_id", "created_at" desc, "id") where "deleted_at" is null',
    },
    // name_in_use among live templates of a team (spec 7.1); deleted templates free their name
    {
      name: 'product_info_templates_live_name_unique',
      expression: 'create unique index "product_info_templates_live_name_unique" on "product_info_templates" ("team_id", "name") where "deleted_at" is null',
    },
    // at most one library default per team
    {
      name: 'product_info_templates_one_library_default',
      expression:
        'create unique index "product_info_templates_one_library_default" on "product_info_templates" ("team_id") where "is_library_default" and "deleted_at" is null',
    },
  ],
  properties: {
    id: p.string().length(128).primary(),
    team: () => p.manyToOne(Team),
    name: p.string().length(30),
    description: p.string().length(50).nullable(),
    enabled: p.boolean().default(true),
    isLibraryDefault: p.boolean().default(false),
    // deferred: the template row and its first version are inserted in one transaction
    currentVersion: () => p.manyToOne(TemplateVersion).deferMode('deferred'),
    createdAt: dbTimestamp(),
    updatedAt: dbTimestamp(),
    deletedAt: nullableTimestamp(),
  },
});
