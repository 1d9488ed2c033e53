import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';
import { LibraryFolder } from '../folders/folder.entity.ts';

/**
 * A share of a folder (search-share, spec 4.6): the token is stored only as its SHA-256 and the
 * optional password only as an scrypt hash. Whoever holds the token (and password) reaches that
 * folder's subtree and nothing else.
 */
export const LibraryShare = defineEntity({
  name: 'LibraryShare',
  tableName: 'library_shares',
  uniques: [{ name: 'library_shares_token_hash_unique', properties: ['tokenHash'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    // a share goes with its folder when the recycle bin purges it
    folder: () => p.manyToOne(LibraryFolder).deleteRule('cascade'),
    tokenHash: p.string().length(64),
    passwordHash: p.text().nullable(),
    createdAt: dbTimestamp(),
  },
});
