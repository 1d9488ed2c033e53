import { type FileValidityView, VALIDITY_STATUSES } from '../../core/assets/files/file-validity.service.ts';
import { builder } from '../builder.ts';
import { enumFromCore } from '../enums.ts';

const ValidityStatusEnum = enumFromCore('ValidityStatus', {
  description: 'Where a file stands in its validity period (docs/library.md "Validity").',
  values: Object.values(VALIDITY_STATUSES),
  describe: { VALID: 'Valid now (validityStatus 0).', NOT_STARTED: 'Before startTime (validityStatus 1).', EXPIRED: 'At or after endTime (validityStatus 2).' },
});

export const FileValidityRef = builder.objectRef<FileValidityView>('FileValidity').implement({
  description: 'A file\'s validity period and status (docs/library.md "Validity"); the fields of the spec 6.2 VALIDITY event.',
  fields: (t) => ({
    materialId: t.exposeInt('materialId', { description: 'The file-path ID.' }),
    validityStatus: t.exposeInt('validityStatus', { description: '0 valid, 1 not yet valid (before startTime), 2 expired (at or after endTime).' }),
    validityStatusName: t.field({
      type: ValidityStatusEnum,
      description: 'The status by name, as validityStatus.',
      resolve: (validity) => validity.validityStatusName,
    }),
    daysToExpire: t.exposeInt('daysToExpire', { nullable: true, description: 'Whole days until endTime, rounded up; 0 once expired; null when permanent.' }),
    startTime: t.exposeString('startTime', { nullable: true, description: 'RFC 3339, UTC, microseconds; null: valid from the start.' }),
    endTime: t.exposeString('endTime', { nullable: true, description: 'RFC 3339, UTC, microseconds; null: permanent.' }),
    isPermanent: t.exposeBoolean('isPermanent', { description: 'True when there is no endTime.' }),
  }),
});

const FileValidityInputRef = builder.inputType('FileValidityInput', {
  description: 'A validity period; it replaces the current one. Both omitted: always valid, permanent.',
  fields: (t) => ({
    startTime: t.string({ description: 'RFC 3339: the file is valid from then; null or omitted: from the start.' }),
    endTime: t.string({ description: 'RFC 3339: the file expires then (after startTime, else validation_failed); null or omitted: permanent.' }),
  }),
});

builder.mutationFields((t) => ({
  setLibraryFileValidity: t.field({
    type: FileValidityRef,
    description:
      "Sets (replaces) a file's validity period; needs editable or higher. Writes a MATERIAL_METADATA_UPDATED VALIDITY event when the period or status changes. Errors: not_found, validation_failed (endTime not after startTime, not RFC 3339).",
    args: {
      id: t.arg.int({ required: true, description: 'File-path ID.' }),
      input: t.arg({ type: FileValidityInputRef, required: true, description: 'The period.' }),
    },
    resolve: (_root, args, gql) => gql.core.assets.fileValidity.set(gql.ctx, args.id, args.input),
  }),
}));
