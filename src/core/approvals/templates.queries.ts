import { randomUUID } from 'node:crypto';
import type { SizedRow } from '../platform/answer-budget.ts';
import type { TeamScope } from '../platform/ctx.ts';
import { bool, int, nullableBigintText, text } from '../platform/row-checks.ts';
import { queryOne, queryRows } from '../platform/sql.ts';
import { isoSql } from '../platform/timestamps.ts';
import type { ApprovalTemplateView, Workflow } from './approval.schemas.ts';

/* Statements on approval templates (approval_templates). Every statement names the team. */

const COLUMNS = `id, name, description, enabled, usage_count as "usageCount", auto_import_enabled as "autoImportEnabled", target_folder as "targetFolder",
  workflow, created_by_id::text as "createdBy", ${isoSql('created_at')} as "createdAt", ${isoSql('updated_at')} as "updatedAt"`;

/** A `workflow` jsonb column (of a template, or a task's frozen copy): an object with its nodes. */
export function workflowColumn(value: unknown, column: string): Workflow {
  const workflow = value as Workflow | null;
  if (workflow === null || typeof workflow !== 'object' || !Array.isArray(workflow.nodes)) throw new Error(`column ${column}: expected a workflow with nodes`);
  return workflow;
}

function templateOf(row: Record<string, unknown>): ApprovalTemplateView {
  const workflow = workflowColumn(row.workflow, 'workflow');
  return {
    id: text(row.id, 'id'),
    name: text(row.name, 'name'),
    description: text(row.description, 'description'),
    enabled: bool(row.enabled, 'enabled'),
    usageCount: int(row.usageCount, 'usageCount'),
    autoImportEnabled: bool(row.autoImportEnabled, 'autoImportEnabled'),
    targetFolder: text(row.targetFolder, 'targetFolder'),
    workflow,
    createdBy: nullableBigintText(row.createdBy, 'createdBy'),
    createdAt: text(row.createdAt, 'createdAt'),
    updatedAt: text(row.updatedAt, 'updatedAt'),
  };
}

/** A template's definition as stored. */
export interface TemplateDefinition {
  name: string;
  description: string;
  enabled: boolean;
  autoImportEnabled: boolean;
  targetFolder: string;
  workflow: Workflow;
}

/** A definition's values in the order its columns are written: name, description, enabled, auto_import_enabled, target_folder, workflow. */
function definitionValues(definition: TemplateDefinition): unknown[] {
  return [
    definition.name,
    definition.description,
    definition.enabled,
    definition.autoImportEnabled,
    definition.targetFolder,
    JSON.stringify(definition.workflow),
  ];
}

/** Stores a new template of the team. */
export async function insertTemplate(tx: TeamScope, definition: TemplateDefinition, createdBy: number | null): Promise<ApprovalTemplateView> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `insert into approval_templates (id, team_id, name, description, enabled, auto_import_enabled, target_folder, workflow, created_by_id)
     values (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?) returning ${COLUMNS}`,
    [randomUUID(), tx.teamId, ...definitionValues(definition), createdBy],
  );
  return templateOf(row!);
}

/** Replaces a template's definition; null when the team has no such template. */
export async function updateTemplate(tx: TeamScope, templateId: string, definition: TemplateDefinition): Promise<ApprovalTemplateView | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update approval_templates set name = ?, description = ?, enabled = ?, auto_import_enabled = ?, target_folder = ?, workflow = ?::jsonb, updated_at = now()
      where id = ?::uuid and team_id = ? returning ${COLUMNS}`,
    [...definitionValues(definition), templateId, tx.teamId],
  );
  return row && templateOf(row);
}

/** Enables or disables a template; null when the team has no such template. */
export async function setTemplateEnabled(tx: TeamScope, templateId: string, enabled: boolean): Promise<ApprovalTemplateView | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update approval_templates set enabled = ?, updated_at = now() where id = ?::uuid and team_id = ? returning ${COLUMNS}`,
    [enabled, templateId, tx.teamId],
  );
  return row && templateOf(row);
}

/**
 * The team's templates, oldest first, from `offset` (at most `limit` of them; null: all): their ids
 * and the stored size of what they carry (read by templatesByIds, batch by batch).
 */
export async function sizedTemplatesPage(scope: TeamScope, limit: number | null, offset: number): Promise<SizedRow<string>[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select id::text, octet_length(workflow::text) + octet_length(name) + octet_length(description) + octet_length(target_folder) as bytes
       from approval_templates where team_id = ? order by created_at, id limit ?::int offset ?`,
    [scope.teamId, limit, offset],
  );
  return rows.map((row) => ({ id: text(row.id, 'id'), storedBytes: int(row.bytes, 'bytes') }));
}

/** Templates of the team among `ids`, in no particular order. */
export async function templatesByIds(scope: TeamScope, ids: readonly string[]): Promise<ApprovalTemplateView[]> {
  if (ids.length === 0) return [];
  const rows = await queryRows<Record<string, unknown>>(scope, `select ${COLUMNS} from approval_templates where team_id = ? and id = any(?::uuid[])`, [
    scope.teamId,
    `{${ids.join(',')}}`,
  ]);
  return rows.map(templateOf);
}

/** A template of the team (the id must be a UUID), or null. */
export async function findTemplate(scope: TeamScope, templateId: string): Promise<ApprovalTemplateView | null> {
  const row = await queryOne<Record<string, unknown>>(scope, `select ${COLUMNS} from approval_templates where id = ?::uuid and team_id = ?`, [
    templateId,
    scope.teamId,
  ]);
  return row && templateOf(row);
}

/**
 * Counts a task started from an enabled template of the team: locks the template and checks it is
 * still enabled, in one statement. The template's workflow, to freeze into the task; null when it
 * is disabled (or not the team's).
 */
export async function countTemplateUse(tx: TeamScope, templateId: string): Promise<Workflow | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    'update approval_templates set usage_count = usage_count + 1 where id = ?::uuid and team_id = ? and enabled returning workflow',
    [templateId, tx.teamId],
  );
  return row && workflowColumn(row.workflow, 'workflow');
}
