import { defineEntity, p } from '@mikro-orm/core';
import { Team } from '../access/team.entity.ts';
import { dbTimestamp } from '../platform/timestamps.ts';
import { ApprovalTask } from './approval-task.entity.ts';

/** An asset under review: the bytes' sha256 and storage key, by version (spec 6.3 latestAssets). */
export const ApprovalAsset = defineEntity({
  name: 'ApprovalAsset',
  tableName: 'approval_assets',
  uniques: [{ name: 'approval_assets_task_position_version_unique', properties: ['task', 'position', 'version'] }],
  // the permanent delete of the library asks whether any row still names a key (recycle-bin/stored-bytes.ts)
  indexes: [{ properties: ['storageKey'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    team: () => p.manyToOne(Team),
    task: () => p.manyToOne(ApprovalTask).deleteRule('cascade'),
    position: p.integer(),
    version: p.integer(),
    name: p.text(),
    url: p.text().nullable(),
    sha256: p.string().length(64),
    storageKey: p.text(),
    byteSize: p.bigint(),
    mimeType: p.string().length(255).nullable(),
    extension: p.string().length(32).nullable(),
    createdAt: dbTimestamp(),
  },
});
