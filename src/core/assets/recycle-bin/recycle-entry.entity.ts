import { defineEntity, p } from '@mikro-orm/core';
import { Member } from '../../access/member.entity.ts';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';

/**
 * One deletion in a team's recycle bin (docs/library.md "Recycle bin"): a file deleted on its own,
 * or a folder deleted with its subtree. The files and folders it took carry its id in
 * `recycle_entry_id`, so a restore or a permanent delete acts on exactly what that deletion took.
 */
export const RecycleEntry = defineEntity({
  name: 'RecycleEntry',
  tableName: 'library_recycle_entries',
  indexes: [{ properties: ['team', 'id'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    /** `file` or `folder`: what was deleted. */
    kind: p.string().length(16),
    /** The deleted file or folder (the top of the deletion); plain ids, the rows stay until a permanent delete. */
    fileId: p.integer().nullable(),
    folderId: p.integer().nullable(),
    /** The name and the folder path the item had when deleted, for the bin's listing. */
    name: p.string().length(255),
    originalPath: p.text(),
    deletedBy: () => p.manyToOne(Member).nullable(),
    deletedAt: dbTimestamp(),
  },
});
