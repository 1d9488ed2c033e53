import type { TemplateView } from '../../src/core/catalogue/templates/template.schemas.ts';
import type { TestEnv } from './env.ts';
import { type GivenKey, given } from './given.ts';

let counter = 0;

/** A unique template name (names are unique among live templates of a library; at most 30 characters). */
export function templateName(prefix = 'T'): string {
  return `${prefix}-${process.pid}-${++counter}`.slice(0, 30);
}

/** One custom text field input. */
export function textField(key: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { key, name: key, type: 'text', ...extra };
}

/** Template fixtures through the core, returning what they made. */
export function givenTemplates(env: TestEnv) {
  const g = given(env);
  return {
    async template(key: GivenKey, input: Record<string, unknown> = {}): Promise<TemplateView> {
      const ctx = await g.ctx(key);
      const outcome = await env.core.catalogue.templates.create(ctx, { name: templateName(), groups: [{ name: 'Basics', fields: [] }], ...input });
      return outcome.body;
    },
    /** Row counts of everything a template write touches, to prove a refused write changed nothing. */
    async snapshot(teamId: number): Promise<Record<string, unknown>> {
      const em = env.orm.em.fork();
      const rows = await em.execute<Record<string, unknown>[]>(
        `select
           (select count(*)::int from product_info_templates where team_id = ?) as templates,
           (select count(*)::int from template_versions where team_id = ?) as versions,
           (select count(*)::int from template_brand_bindings where team_id = ?) as brand_bindings,
           (select count(*)::int from template_category_bindings where team_id = ?) as category_bindings,
           (select coalesce(string_agg(id || ':' || name || ':' || coalesce(description, '~') || ':' || enabled || ':' || is_library_default || ':' || current_version_id || ':' || updated_at || ':' || coalesce(deleted_at::text, '-'), ',' order by id), '')
              from product_info_templates where team_id = ?) as rows,
           (select coalesce(string_agg(brand_id || '>' || template_id, ',' order by brand_id), '') from template_brand_bindings where team_id = ?) as brands,
           (select coalesce(string_agg(category_id || '>' || template_id, ',' order by category_id), '') from template_category_bindings where team_id = ?) as categories`,
        [teamId, teamId, teamId, teamId, teamId, teamId, teamId],
      );
      return rows[0]!;
    },
  };
}
