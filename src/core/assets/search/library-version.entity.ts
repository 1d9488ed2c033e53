import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';

/**
 * A counter per team that triggers raise on every change to the team's files, tags, folders,
 * palettes and folder members: search keys its memo of exact totals by it (docs/search.md).
 */
export const LibraryVersion = defineEntity({
  name: 'LibraryVersion',
  tableName: 'library_versions',
  properties: {
    team: () => p.manyToOne(Team).primary(),
    version: p.bigint().default(1),
  },
});
