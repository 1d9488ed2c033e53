import { requirePermission } from '../../access/roles.ts';
import type { Ctx, TeamScope } from '../../platform/ctx.ts';
import { DomainError, type FieldIssue, invalidFields } from '../../platform/errors.ts';
import { queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { MetadataFieldInput, type MetadataFieldView } from './custom-metadata.schemas.ts';
import { checkDefinition, CUSTOM_METADATA_LIMITS } from './field-types.ts';

const checkInput = compileInput(MetadataFieldInput);

const COLUMNS = `id, name, type, options, ${isoSql('created_at')} as "createdAt"`;

/**
 * The team's custom metadata fields (docs/library.md "Custom metadata and custom fields"):
 * defining one needs manage (`library:manage_fields`); any caller of the team may list them.
 */
export class MetadataFieldService {
  /** Defines a field; 409 name_in_use when the team has one of that name, 422 for a bad definition or beyond 200 fields. */
  async create(ctx: Ctx, input: unknown): Promise<MetadataFieldView> {
    requirePermission(ctx, 'library:manage_fields');
    const body = checkInput(input);
    const issues: FieldIssue[] = [];
    const definition = checkDefinition(body, '', issues);
    if (issues.length > 0) throw invalidFields(issues);
    return inTransaction(ctx, async (tx) => {
      // the team row's lock makes the count and the insert one step among concurrent definitions
      await queryOne(tx, 'select id from teams where id = ? for no key update', [tx.teamId]);
      const { n } = (await queryOne<{ n: number }>(tx, 'select count(*)::int as n from library_metadata_fields where team_id = ?', [tx.teamId]))!;
      if (n >= CUSTOM_METADATA_LIMITS.metadataFields)
        throw invalidFields([{ field: 'name', message: `a team may define at most ${CUSTOM_METADATA_LIMITS.metadataFields} metadata fields` }]);
      const row = await queryOne<MetadataFieldView>(
        tx,
        `insert into library_metadata_fields (team_id, name, type, options) values (?, ?, ?, ?::jsonb)
         on conflict (team_id, name) do nothing returning ${COLUMNS}`,
        [tx.teamId, definition.name, definition.type, definition.options === null ? null : JSON.stringify(definition.options)],
      );
      if (!row) throw new DomainError('name_in_use', 'The team already has a metadata field with this name');
      return row;
    });
  }

  /** The team's metadata fields, by name. */
  async list(ctx: TeamScope): Promise<MetadataFieldView[]> {
    return queryRows<MetadataFieldView>(ctx, `select ${COLUMNS} from library_metadata_fields where team_id = ? order by name, id`, [ctx.teamId]);
  }
}
