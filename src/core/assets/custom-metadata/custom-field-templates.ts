import { requirePermission } from '../../access/roles.ts';
import type { Ctx, TeamScope } from '../../platform/ctx.ts';
import { DomainError, notFound, type FieldIssue, invalidFields } from '../../platform/errors.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { CustomFieldTemplateInput, type CustomFieldTemplateView, type CustomFieldView } from './custom-metadata.schemas.ts';
import { checkDefinition, CUSTOM_METADATA_LIMITS, definitionName } from './field-types.ts';

const checkInput = compileInput(CustomFieldTemplateInput);

const FIELD_COLUMNS = 'id, template_id as "templateId", name, type, options, position';

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
      await queryOne(tx, 'select id from teams where id = ? for no key update', [tx.teamId]);
      const { n } = (await queryOne<{ n: number }>(tx, 'select count(*)::int as n from library_custom_field_templates where team_id = ?', [tx.teamId]))!;
      if (n >= CUSTOM_METADATA_LIMITS.templates)
        throw invalidFields([{ field: 'name', message: `a team may define at most ${CUSTOM_METADATA_LIMITS.templates} custom field templates` }]);
      const template = await queryOne<{ id: number }>(
        tx,
        'insert into library_custom_field_templates (team_id, name) values (?, ?) on conflict (team_id, name) do nothing returning id',
        [tx.teamId, name],
      );
      if (!template) throw new DomainError('name_in_use', 'The team already has a custom field template with this name');
      await queryRows(
        tx,
        `insert into library_custom_fields (team_id, template_id, name, type, options, position)
         select ?, ?, f.name, f.type, f.options, f.position from jsonb_to_recordset(?::jsonb) as f(name text, type text, options jsonb, position int)`,
        [tx.teamId, template.id, JSON.stringify(fields.map((field, position) => ({ ...field, position })))],
      );
      return (await this.byIds(tx, [template.id]))[0]!;
    });
  }

  /** The team's templates by name, each with its fields in order. */
  async list(ctx: TeamScope): Promise<CustomFieldTemplateView[]> {
    const rows = await queryRows<{ id: number }>(ctx, 'select id from library_custom_field_templates where team_id = ? order by name, id', [ctx.teamId]);
    return this.byIds(
      ctx,
      rows.map((r) => r.id),
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
    const templates = await queryRows<Omit<CustomFieldTemplateView, 'fields'>>(
      ctx,
      `select id, name, ${isoSql('created_at')} as "createdAt" from library_custom_field_templates where team_id = ? and id = any(?::int[])`,
      [ctx.teamId, intArray(ids)],
    );
    const fields = await queryRows<CustomFieldView>(
      ctx,
      `select ${FIELD_COLUMNS} from library_custom_fields where team_id = ? and template_id = any(?::int[]) order by template_id, position`,
      [ctx.teamId, intArray(ids)],
    );
    const byId = new Map(templates.map((t) => [t.id, { ...t, fields: fields.filter((f) => f.templateId === t.id) }]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }
}
