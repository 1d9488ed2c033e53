import { defineEntity, p } from '@mikro-orm/core';
import { Member } from '../access/member.entity.ts';
import { Team } from '../access/team.entity.ts';
import { dbTimestamp } from '../platform/timestamps.ts';

/**
 * An approval template (spec 2.7; docs/approvals.md): a named workflow of nodes. A task freezes a
 * copy of the workflow when it starts, so editing a template never changes a running task.
 */
export const ApprovalTemplate = defineEntity({
  name: 'ApprovalTemplate',
  tableName: 'approval_templates',
  indexes: [{ name: 'approval_templates_team_index', properties: ['team', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    team: () => p.manyToOne(Team),
    name: p.string().length(128),
    description: p.text().default(''),
    enabled: p.boolean().default(true),
    usageCount: p.integer().default(0),
    autoImportEnabled: p.boolean().default(false),
    targetFolder: p.text().default(''),
    workflow: p.json().columnType('jsonb'),
    createdBy: () => p.manyToOne(Member).nullable(),
    createdAt: dbTimestamp(),
    updatedAt: dbTimestamp(),
  },
});
