import { defineEntity, p } from '@mikro-orm/core';
import { Member } from '../../access/member.entity.ts';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';
import { probedBytesProperties } from '../storage/stored-object.entity.ts';

/**
 * A pending inbound (docs/library.md "Pending inbound"): an import whose bytes are
 * probed and stored (content-addressed) but which is not in the library yet. It holds what the
 * import was given and what was read from the bytes; confirming it places the file (and creates
 * its folders) as the import would have, discarding it removes the row. It is no library file, so
 * search, shares and products never see it.
 */
export const LibraryPendingInbound = defineEntity({
  name: 'LibraryPendingInbound',
  tableName: 'library_pending_inbounds',
  // every read is one team's, newest first
  // storage_key: the permanent delete asks whether any row still names a key (recycle-bin/stored-bytes.ts)
  indexes: [{ properties: ['team', 'id'] }, { properties: ['storageKey'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    /** The target folder path (`/a/b`, `/` = the library root); the folders are found or created at confirm. */
    folderPath: p.text(),
    name: p.string().length(255),
    /** Lower-case, without the dot: from the name, or from the content when the name has none. */
    extension: p.string().length(32).nullable(),
    /** Tag names as given (trimmed, duplicates collapsed); the team's tags are found or created at confirm. */
    tags: p.array().columnType('text[]').defaultRaw("'{}'"),
    description: p.text().nullable(),
    score: p.smallint().nullable(),
    link: p.string().length(2048).nullable(),
    /** The import's `--user`: at confirm the file's owner, creator and create/update user. */
    user: () => p.manyToOne(Member).nullable(),
    ...probedBytesProperties(),
    /** The dominant colours read at import (colour search, docs/search.md), stored with the object at confirm; [] for non-images. */
    palette: p.json().columnType('jsonb').defaultRaw("'[]'"),
    createdAt: dbTimestamp(),
  },
});
