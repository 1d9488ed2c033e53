import { defineEntity, p } from '@mikro-orm/core';
import { Member } from '../../access/member.entity.ts';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';
import { LIBRARY_FOLDER_MEMBERS_TRIGGERS } from '../search/search-triggers.ts';
import { LibraryFolder } from './folder.entity.ts';

/**
 * A member's access to a folder and its subtree (search-assets `currentUserId`, docs/search.md): a
 * member may access the files they own and the files under the folders they belong to.
 */
export const LibraryFolderMember = defineEntity({
  name: 'LibraryFolderMember',
  tableName: 'library_folder_members',
  indexes: [{ properties: ['team', 'member'] }],
  triggers: LIBRARY_FOLDER_MEMBERS_TRIGGERS,
  properties: {
    folder: () => p.manyToOne(LibraryFolder).primary(),
    member: () => p.manyToOne(Member).primary(),
    team: () => p.manyToOne(Team),
    createdAt: dbTimestamp(),
  },
});
