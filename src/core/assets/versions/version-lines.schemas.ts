import { type Static, Type } from 'typebox';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';
import { literalUnion } from '../../platform/schema-shapes.ts';

/** Makes a live file a new version of another file's line (6.2 ADD, or REPLACE_COVER_ON_UPLOAD with `makeCover`). */
export const AddVersionInput = Type.Object(
  {
    versionFileId: Type.Integer({
      minimum: 1,
      maximum: MAX_RESOURCE_ID,
      description: 'A live file of the team, in no version line, that becomes the newest version.',
    }),
    makeCover: Type.Optional(
      Type.Boolean({ description: 'Whether the new version becomes the cover at once (REPLACE_COVER_ON_UPLOAD). Default false (ADD).' }),
    ),
  },
  { $id: 'AddVersionInput', additionalProperties: false },
);
export type AddVersionInput = Static<typeof AddVersionInput>;

/** What becomes of a version taken out of its line (6.2 removeType). */
export const REMOVE_TYPES = ['ADD', 'DELETE'] as const;
export type RemoveType = (typeof REMOVE_TYPES)[number];

/** Takes a version out of its line: ADD keeps it as a file of its own in the line's folder, DELETE sends it to the recycle bin. */
export const RemoveVersionInput = Type.Object(
  { removeType: literalUnion(REMOVE_TYPES, { description: '`ADD` or `DELETE` (6.2 removeType).' }) },
  { $id: 'RemoveVersionInput', additionalProperties: false },
);
export type RemoveVersionInput = Static<typeof RemoveVersionInput>;

/** One version of a line, oldest first. */
export interface VersionView {
  /** The version's own file-path ID (its material id in events). */
  materialId: number;
  /** 1 for the file the line was made from, then 2, 3, ... in the order versions were added. */
  version: number;
  isCover: boolean;
  name: string;
  extension: string | null;
  /** Bytes. */
  byteSize: number;
  /** RFC 3339, UTC, microseconds. */
  createdAt: string;
}

/** A version line: its cover and its versions; `lineId` null for a file that is in no line (then `versions` is empty). */
export interface VersionLineView {
  lineId: number | null;
  coverMaterialId: number;
  versions: VersionView[];
}
