import type { TeamScope } from '../../platform/ctx.ts';
import { queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import { groupViews } from '../templates/template-read.ts';
import type { TemplateGroupView, TemplateVersionView } from '../templates/template.schemas.ts';

/**
 * Batch read of pinned template versions for a page of products (GraphQL Product.templateDefinition):
 * one query for any number of products. Versions are immutable and kept after their template is
 * deleted, so a product's pinned definition never changes (spec 2.5, 3.3). Filters by team.
 */
export async function readPinnedVersions(ctx: TeamScope, versionIds: readonly string[]): Promise<TemplateVersionView[]> {
  if (versionIds.length === 0) return [];
  const rows = await queryRows<Omit<TemplateVersionView, 'groups'> & { definition: { groups: TemplateGroupView[] } }>(
    ctx,
    `select v.id, v.template_id as "templateId", v.number, v.name, v.description, ${isoSql('v.created_at')} as "createdAt", v.definition
       from template_versions v where v.team_id = ? and v.id in (select jsonb_array_elements_text(?::jsonb))`,
    [ctx.teamId, JSON.stringify(versionIds)],
  );
  return rows.map(({ definition, ...version }) => ({ ...version, groups: groupViews(definition.groups) }));
}
