import { requirePermission } from '../../access/roles.ts';
import { lockTeam } from '../../access/teams.queries.ts';
import { admitStored } from '../../platform/answer-budget.ts';
import type { AnsweringScope, Ctx } from '../../platform/ctx.ts';
import { DomainError, type FieldIssue, invalidFields } from '../../platform/errors.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { countMetadataFields, insertMetadataField, listMetadataFields, metadataFieldsBytes } from './custom-metadata.queries.ts';
import { MetadataFieldInput, type MetadataFieldView } from './custom-metadata.schemas.ts';
import { CUSTOM_METADATA_LIMITS, checkDefinition } from './field-types.ts';

const checkInput = compileInput(MetadataFieldInput);

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
      await lockTeam(tx, tx.teamId);
      if ((await countMetadataFields(tx)) >= CUSTOM_METADATA_LIMITS.metadataFields)
        throw invalidFields([{ field: 'name', message: `a team may define at most ${CUSTOM_METADATA_LIMITS.metadataFields} metadata fields` }]);
      const row = await insertMetadataField(tx, definition);
      if (!row) throw new DomainError('name_in_use', 'The team already has a metadata field with this name');
      return row;
    });
  }

  /**
   * The team's metadata fields, by name: at most 200 of up to about 40 KB of options each (8 MB),
   * admitted whole against the caller's answer when it has one (GraphQL, the CLI).
   */
  async list(ctx: AnsweringScope): Promise<MetadataFieldView[]> {
    if (ctx.answer) await admitStored(ctx, await metadataFieldsBytes(ctx));
    return listMetadataFields(ctx);
  }
}
