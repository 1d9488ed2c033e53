import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';

/**
 * A version line (docs/library.md "Version lines"): library files that are versions of one
 * another. Each version is a file with its own file-path ID (`version_line_id`, `version_number`
 * on library_files); only the cover is live, the others are hidden versions, so search, shares and
 * folders show the cover, and a product that references any version shows the cover.
 */
export const VersionLine = defineEntity({
  name: 'VersionLine',
  tableName: 'library_version_lines',
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    /** The live version; a plain id, as the line and its files are written in one transaction. */
    coverFileId: p.integer(),
    createdAt: dbTimestamp(),
  },
});
