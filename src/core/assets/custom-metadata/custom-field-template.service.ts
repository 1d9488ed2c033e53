import { requirePermission } from '../../access/roles.ts';
import { lockTeam } from '../../access/teams.queries.ts';
import { type SizedPage, sizedPage } from '../../platform/answer-budget.ts';
import type { Ctx, TeamScope } from '../../platform/ctx.ts';
import { DomainError, type FieldIssue, invalidFields, notFound } from '../../platform/errors.ts';
import { normalizePage } from '../../platform/pagination.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { countTemplates, fieldsOfTemplates, insertTemplate, insertTemplateFields, sizedTemplatesByName, templatesAmong } from './custom-metadata.queries.ts';
import { CustomFieldTemplateInput, type CustomFieldTemplateView } from './custom-metadata.schemas.ts';
import { CUSTOM_METADATA_LIMITS, checkDefinition, definitionName } from './field-types.ts';

const checkInput = compileInput(CustomFieldTemplateInput);

/**
 * The team's custom field templates (docs/library.md "Custom metadata and custom fields"): each a
 * name and its custom fields, defined together. Defining one needs manage (`library:manage_fields`);
 * any caller of the team may list them.
 */
export class CustomFieldTemplateService {
  /** Defines a template with its fields; 409 name_in_use for a name the team has, 422 for a bad definition or beyond 100 templates. */
  async create(ctx: Ctx, input: unknown): Promise<CustomFieldTemplateView> {
    requirePermission(ctx, 'library:manage_fields');
    const body = checkInput(input);
    const issues: FieldIssue[] = [];
    const name = definitionName(body.name, 'name', issues);
    const fields = body.fields.map((field, i) => checkDefinition(field, `fields[${i}].`, issues));
    fields.forEach((field, i) => {
      if (fields.findIndex((f) => f.name === field.name) !== i) issues.push({ field: `fields[${i}].name`, message: "repeats an earlier field's name" });
    });
    if (issues.length > 0) throw invalidFields(issues);
    return inTransaction(ctx, async (tx) => {
      await lockTeam(tx, tx.teamId);
      if ((await countTemplates(tx)) >= CUSTOM_METADATA_LIMITS.templates)
        throw invalidFields([{ field: 'name', message: `a team may define at most ${CUSTOM_METADATA_LIMITS.templates} custom field templates` }]);
      const templateId = await insertTemplate(tx, name);
      if (templateId === null) throw new DomainError('name_in_use', 'The team already has a custom field template with this name');
      await insertTemplateFields(tx, templateId, fields);
      return (await this.byIds(tx, [templateId]))[0]!;
    });
  }

  /**
   * A page of the team's templates by name, each with its fields in order, sized and read in batches
   * (docs/library.md "Custom metadata and custom fields": a template may hold about 1 MB of options).
   * `pageSize` defaults to 100, the most templates a team may have, so the first page is all of them.
   */
  async list(ctx: TeamScope, query: { page?: number | null; pageSize?: number | null } = {}): Promise<SizedPage<CustomFieldTemplateView, null>> {
    const page = normalizePage({ page: query.page, pageSize: query.pageSize ?? CUSTOM_METADATA_LIMITS.templates });
    const rows = await sizedTemplatesByName(ctx, page.pageSize, (page.page - 1) * page.pageSize);
    return sizedPage(
      null,
      rows,
      (ids) => this.byIds(ctx, ids),
      (template) => template.id,
    );
  }

  /** A template of the team; 404 not_found for an unknown id or another team's. */
  async get(ctx: TeamScope, templateId: number): Promise<CustomFieldTemplateView> {
    const [template] = await this.byIds(ctx, [templateId]);
    if (!template) throw notFound('Custom field template');
    return template;
  }

  /** The team's templates among `ids`, in the order of `ids`. */
  private async byIds(ctx: TeamScope, ids: number[]): Promise<CustomFieldTemplateView[]> {
    if (ids.length === 0) return [];
    const templates = await templatesAmong(ctx, ids);
    const fields = await fieldsOfTemplates(ctx, ids);
    const byId = new Map(templates.map((t) => [t.id, { ...t, fields: fields.filter((f) => f.templateId === t.id) }]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }
}
