import { type Static, type TSchema, Type } from 'typebox';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';
import { LIBRARY_LIMITS } from './library.schemas.ts';

const id = (description?: string) => Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, ...(description ? { description } : {}) });
const clearable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001f\\u007f]*$';

/** Limits of the image analysis fields (docs/search.md). */
export const ANALYSIS_LIMITS = { aiTags: 2048, aiTitle: 512, aiDescription: 8192, detailedItems: 200, detailedBytes: 65536 } as const;

/** imageContentAnalysis (spec 2.6): each field optional; null clears it. */
export const AnalysisFields = {
  aiTags: clearable(Type.String({ maxLength: ANALYSIS_LIMITS.aiTags, description: 'Comma-separated tags from an image model.' })),
  aiTitle: clearable(Type.String({ maxLength: ANALYSIS_LIMITS.aiTitle })),
  aiDescription: clearable(Type.String({ maxLength: ANALYSIS_LIMITS.aiDescription })),
  aiDetailedDescription: clearable(Type.Array(Type.Unknown(), { maxItems: ANALYSIS_LIMITS.detailedItems, description: 'A JSON array (at most 64 KiB).' })),
};

export const AnalysisInput = Type.Object(AnalysisFields, { $id: 'AnalysisInput', additionalProperties: false });
export type AnalysisInput = Static<typeof AnalysisInput>;

/** `asset analysis set` (operator CLI): the team, the file-path ID and the fields to set. */
export const OperatorAnalysisInput = Type.Object(
  { team: id('The team of the file.'), fileId: id('The file-path ID.'), ...AnalysisFields },
  { $id: 'OperatorAnalysisInput', additionalProperties: false },
);
export type OperatorAnalysisInput = Static<typeof OperatorAnalysisInput>;

/** A change to a file's metadata; an omitted field is unchanged, null clears it. */
export const LibraryFilePatch = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: LIBRARY_LIMITS.nameLength, pattern: '^(?=.*\\S)[^/\\u0000-\\u001f\\u007f]+$' })),
    description: clearable(Type.String({ maxLength: LIBRARY_LIMITS.descriptionLength })),
    tags: Type.Optional(
      Type.Array(Type.String({ maxLength: 256, pattern: NO_CONTROL_CHARACTERS }), {
        maxItems: LIBRARY_LIMITS.tagsPerFile,
        description: "Replaces the file's tags.",
      }),
    ),
    score: clearable(Type.Integer({ minimum: 0, maximum: 5 })),
    link: clearable(Type.String({ minLength: 1, maxLength: LIBRARY_LIMITS.linkLength })),
    analysis: Type.Optional(AnalysisInput),
  },
  { $id: 'LibraryFilePatch', additionalProperties: false },
);
export type LibraryFilePatch = Static<typeof LibraryFilePatch>;

export const TransferOwnershipInput = Type.Object(
  { ownerUserId: id('The new owner: a member of the team.') },
  { $id: 'TransferOwnershipInput', additionalProperties: false },
);

export const MoveFileInput = Type.Object(
  { folderId: Type.Union([id('Target folder; null is the library root.'), Type.Null()]) },
  { $id: 'MoveFileInput', additionalProperties: false },
);

export const CreateFolderInput = Type.Object(
  {
    parentId: clearable(id('Parent folder; omitted or null for a top-level folder.')),
    name: Type.String({ minLength: 1, maxLength: LIBRARY_LIMITS.folderNameLength }),
  },
  { $id: 'CreateFolderInput', additionalProperties: false },
);

export const RenameFolderInput = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: LIBRARY_LIMITS.folderNameLength }) },
  { $id: 'RenameFolderInput', additionalProperties: false },
);

export const FolderMemberInput = Type.Object(
  { folderId: id(), userId: id('A member of the team.') },
  { $id: 'FolderMemberInput', additionalProperties: false },
);
