import { defineEntity, p } from '@mikro-orm/core';
import { Member } from '../../access/member.entity.ts';
import { Team } from '../../access/team.entity.ts';
import { dbTimestamp } from '../../platform/timestamps.ts';

/**
 * What an import reads from the bytes themselves and where it stores them: the columns a stored
 * object and a pending inbound (which becomes one at confirm) both hold. Fresh builders per entity.
 */
export function probedBytesProperties() {
  return {
    sha256: p.string().length(64),
    storageKey: p.string().length(255),
    mimeType: p.string().length(255),
    byteSize: p.bigint(),
    width: p.integer().nullable(),
    height: p.integer().nullable(),
    durationMs: p.bigint().nullable(),
  };
}

/**
 * A stored object (the "asset object"): bytes identified by their SHA-256, with what was read from
 * the bytes themselves (MIME type by content, size, image dimensions, media duration). Immutable.
 * One row per team and content, so identical bytes imported twice become one object with two
 * placements; the bytes live once in storage at a content-addressed key shared by every team.
 */
export const StoredObject = defineEntity({
  name: 'StoredObject',
  tableName: 'stored_objects',
  uniques: [{ name: 'stored_objects_team_id_sha256_unique', properties: ['team', 'sha256'] }],
  // storage_key: the permanent delete asks whether any row still names a key (recycle-bin/stored-bytes.ts)
  indexes: [{ properties: ['sha256'] }, { properties: ['storageKey'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    ...probedBytesProperties(),
    createUser: () => p.manyToOne(Member).nullable(),
    createdAt: dbTimestamp(),
  },
});
