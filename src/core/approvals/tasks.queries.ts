import type { TeamScope, UnitOfWork } from '../platform/ctx.ts';
import { bool, int, nullableInt, nullableText, oneOf, text } from '../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../platform/sql.ts';
import { isoMillisSql, isoSql } from '../platform/timestamps.ts';
import type { Workflow } from './approval.schemas.ts';
import { APPROVAL_STATUSES, APPROVER_STATES, type ApprovalStatus, type ApproverState, NODE_ROLES, type NodeRole } from './approval-values.ts';
import { workflowColumn } from './templates.queries.ts';

/*
 * Statements on approval tasks with their decisions and asset versions (approval_tasks,
 * approval_decisions, approval_assets). Statements that take a task id run inside the transaction
 * that locked the task (lockTaskRow), or name the team.
 */

/** A task row as the engine reads it, locked for the transaction. */
export interface TaskRow {
  id: string;
  team_id: number;
  template_id: string;
  workflow: Workflow;
  status: ApprovalStatus;
  created_by_id: number;
  node_index: number;
  node_role: NodeRole;
  node_status: string;
  round: number;
  timeout_at: string | null;
  auto_import: boolean;
  target_folder: string;
}

/** How many assets a task of the team holds (0 for an unknown task or one of another team). */
export async function countTaskAssets(tx: UnitOfWork, taskId: string, teamId: number): Promise<number> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    'select count(distinct position)::int as count from approval_assets where task_id = ?::uuid and team_id = ?',
    [taskId, teamId],
  );
  return row === null ? 0 : int(row.count, 'count');
}

/** Locks a task (of the team, unless `teamId` is null: the system's timers) with what the engine needs of its template; null when not found. */
export async function lockTaskRow(tx: UnitOfWork, taskId: string, teamId: number | null): Promise<TaskRow | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `select t.id, t.team_id, t.template_id, t.workflow, t.status, t.created_by_id, t.node_index, t.node_role, t.node_status, t.round, t.timeout_at::text,
            p.auto_import_enabled as auto_import, p.target_folder
       from approval_tasks t join approval_templates p on p.id = t.template_id and p.team_id = t.team_id
      where t.id = ?::uuid and (?::int is null or t.team_id = ?::int) for update of t`,
    [taskId, teamId, teamId],
  );
  return (
    row && {
      id: text(row.id, 'id'),
      team_id: int(row.team_id, 'team_id'),
      template_id: text(row.template_id, 'template_id'),
      workflow: workflowColumn(row.workflow, 'workflow'),
      status: oneOf(APPROVAL_STATUSES, row.status, 'status'),
      created_by_id: int(row.created_by_id, 'created_by_id'),
      node_index: int(row.node_index, 'node_index'),
      node_role: oneOf(NODE_ROLES, row.node_role, 'node_role'),
      node_status: text(row.node_status, 'node_status'),
      round: int(row.round, 'round'),
      timeout_at: nullableText(row.timeout_at, 'timeout_at'),
      auto_import: bool(row.auto_import, 'auto_import'),
      target_folder: text(row.target_folder, 'target_folder'),
    }
  );
}

/** A new task with its first asset versions, in one statement. */
export async function insertTaskWithAssets(
  tx: TeamScope,
  task: { id: string; templateId: string; workflow: Workflow; createdBy: number; reason: string | null; sourceContext: unknown },
  assets: readonly {
    position: number;
    name: string;
    url: string | null;
    sha256: string;
    storage_key: string;
    byte_size: number;
    mime_type: string | null;
    extension: string | null;
  }[],
): Promise<void> {
  await queryRows(
    tx,
    `with task as (
       insert into approval_tasks (id, team_id, template_id, workflow, status, created_by_id, reason, source_context, node_index, node_role, node_status)
       values (?::uuid, ?, ?::uuid, ?::jsonb, 'PENDING', ?, ?, ?::jsonb, 0, 'normal', 'processing') returning id, team_id)
     insert into approval_assets (team_id, task_id, position, version, name, url, sha256, storage_key, byte_size, mime_type, extension)
     select task.team_id, task.id, a.position, 1, a.name, a.url, a.sha256, a.storage_key, a.byte_size, a.mime_type, a.extension
       from task, jsonb_to_recordset(?::jsonb) as a(position int, name text, url text, sha256 text, storage_key text, byte_size bigint, mime_type text, extension text)
      order by a.position`,
    [
      task.id,
      tx.teamId,
      task.templateId,
      JSON.stringify(task.workflow),
      task.createdBy,
      task.reason,
      task.sourceContext === undefined ? null : JSON.stringify(task.sourceContext),
      JSON.stringify(assets),
    ],
  );
}

/** Makes these members pending approvers of a node visit (those already there are kept). */
export async function addPendingDecisions(tx: TeamScope, taskId: string, nodeKey: string, memberIds: readonly number[]): Promise<void> {
  await queryRows(
    tx,
    `insert into approval_decisions (team_id, task_id, node_key, member_id) select ?, ?::uuid, ?, m from unnest(?::int[]) m on conflict do nothing`,
    [tx.teamId, taskId, nodeKey, intArray(memberIds)],
  );
}

/** Moves a task to a node visit, its timeout armed `hours` ahead (none when null); returns when the visit started (ISO, milliseconds). */
export async function startNodeVisit(
  tx: UnitOfWork,
  taskId: string,
  visit: { index: number; role: NodeRole; round: number },
  hours: number | null,
): Promise<string> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update approval_tasks set node_index = ?, node_role = ?, node_status = 'processing', round = ?, node_started_at = now(),
            timeout_at = case when ?::float8 is null then null else now() + ?::float8 * interval '1 hour' end, timer_queued_at = null, updated_at = now()
      where id = ?::uuid returning ${isoMillisSql('node_started_at')} as started`,
    [visit.index, visit.role, visit.round, hours, hours, taskId],
  );
  return text(row!.started, 'started');
}

/** Records a pending approver's decision; when it was made (ISO, milliseconds), or null when the member is not a pending approver of the visit. */
export async function recordDecision(
  tx: UnitOfWork,
  taskId: string,
  nodeKey: string,
  memberId: number,
  decision: string,
  comment: string | null,
): Promise<string | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update approval_decisions set state = ?, comment = ?, decided_at = now()
      where task_id = ?::uuid and node_key = ? and member_id = ? and state = 'pending'
      returning ${isoMillisSql('decided_at')} as decided_at`,
    [decision, comment, taskId, nodeKey, memberId],
  );
  return row && text(row.decided_at, 'decided_at');
}

/** Records the submitter's resubmission as their approval of the resubmit step; when (ISO, milliseconds). */
export async function recordResubmission(tx: UnitOfWork, taskId: string, nodeKey: string, memberId: number, comment: string | null): Promise<string> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update approval_decisions set state = 'approved', comment = ?, decided_at = now() where task_id = ?::uuid and node_key = ? and member_id = ?
     returning ${isoMillisSql('decided_at')} as at`,
    [comment, taskId, nodeKey, memberId],
  );
  return text(row!.at, 'at');
}

/** A member acted on the task: it is PROCESSING, by them. */
export async function markTaskProcessing(tx: UnitOfWork, taskId: string, operatorId: number): Promise<void> {
  await queryRows(tx, `update approval_tasks set status = 'PROCESSING', operator_id = ?, updated_at = now() where id = ?::uuid`, [operatorId, taskId]);
}

/** Cancels a task by its submitter: CANCELED, no deadline, and its pending decisions skipped. */
export async function cancelTask(tx: UnitOfWork, taskId: string, operatorId: number): Promise<void> {
  await queryRows(
    tx,
    `update approval_tasks set status = 'CANCELED', operator_id = ?, timeout_at = null, finished_at = now(), updated_at = now() where id = ?::uuid`,
    [operatorId, taskId],
  );
  await queryRows(tx, `update approval_decisions set state = 'skipped' where task_id = ?::uuid and state = 'pending'`, [taskId]);
}

/** The decisions of a node visit that were not skipped, with the members' names, in the order they were asked. */
export async function visitDecisions(scope: UnitOfWork, taskId: string, nodeKey: string): Promise<{ memberId: number; name: string; state: ApproverState }[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select d.member_id, m.name, d.state from approval_decisions d join members m on m.id = d.member_id
      where d.task_id = ?::uuid and d.node_key = ? and d.state <> 'skipped' order by d.id`,
    [taskId, nodeKey],
  );
  return rows.map((row) => ({ memberId: int(row.member_id, 'member_id'), name: text(row.name, 'name'), state: oneOf(APPROVER_STATES, row.state, 'state') }));
}

/** Skips the pending decisions of a node visit (the node ended). */
export async function skipPendingDecisions(tx: UnitOfWork, taskId: string, nodeKey: string): Promise<void> {
  await queryRows(tx, `update approval_decisions set state = 'skipped' where task_id = ?::uuid and node_key = ? and state = 'pending'`, [taskId, nodeKey]);
}

/** A node rejected the task: REJECTED until its submitter resubmits. */
export async function markTaskRejected(tx: UnitOfWork, taskId: string): Promise<void> {
  await queryRows(tx, `update approval_tasks set status = 'REJECTED' where id = ?::uuid`, [taskId]);
}

/** The last node approved the task; when it finished (ISO, milliseconds). */
export async function markTaskApproved(tx: UnitOfWork, taskId: string): Promise<string> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update approval_tasks set status = 'APPROVED', timeout_at = null, finished_at = now(), updated_at = now() where id = ?::uuid
     returning ${isoMillisSql('finished_at')} as at`,
    [taskId],
  );
  return text(row!.at, 'at');
}

/** The last version of each of a task's assets, in position order. */
export async function finalAssetVersions(tx: UnitOfWork, taskId: string): Promise<{ name: string; storageKey: string }[]> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    `select distinct on (position) name, storage_key from approval_assets where task_id = ?::uuid order by position, version desc`,
    [taskId],
  );
  return rows.map((row) => ({ name: text(row.name, 'name'), storageKey: text(row.storage_key, 'storage_key') }));
}

/** The last version of one of a task's assets, or null. */
export async function latestAssetVersion(tx: UnitOfWork, taskId: string, position: number): Promise<{ version: number; storageKey: string } | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `select version, storage_key from approval_assets where task_id = ?::uuid and position = ? order by version desc limit 1`,
    [taskId, position],
  );
  return row && { version: int(row.version, 'version'), storageKey: text(row.storage_key, 'storage_key') };
}

/** Stores a new version of a task's asset; its id, version and when (ISO, milliseconds). */
export async function insertAssetVersion(
  tx: TeamScope,
  taskId: string,
  position: number,
  version: number,
  asset: { name: string; sha256: string; storageKey: string; byteSize: number; mimeType: string | null },
): Promise<{ id: number; version: number; at: string }> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `insert into approval_assets (team_id, task_id, position, version, name, url, sha256, storage_key, byte_size, mime_type)
     values (?, ?::uuid, ?, ?, ?, null, ?, ?, ?, ?)
     returning id, version, ${isoMillisSql('created_at')} as at`,
    [tx.teamId, taskId, position, version, asset.name, asset.sha256, asset.storageKey, asset.byteSize, asset.mimeType],
  );
  return { id: int(row!.id, 'id'), version: int(row!.version, 'version'), at: text(row!.at, 'at') };
}

/** A task of the team as taskStatusQuery reads it, with the name of who acted last; null when not found. */
export async function taskStatusRow(
  scope: TeamScope,
  taskId: string,
): Promise<{
  id: string;
  status: ApprovalStatus;
  workflow: Workflow;
  node_index: number;
  node_role: NodeRole;
  round: number;
  operator_id: number | null;
  operator_name: string | null;
  updated_at: string;
} | null> {
  const row = await queryOne<Record<string, unknown>>(
    scope,
    `select t.id, t.status, t.workflow, t.node_index, t.node_role, t.round, t.operator_id, m.name as operator_name, ${isoSql('t.updated_at')} as updated_at
       from approval_tasks t left join members m on m.id = t.operator_id where t.id = ?::uuid and t.team_id = ?`,
    [taskId, scope.teamId],
  );
  return (
    row && {
      id: text(row.id, 'id'),
      status: oneOf(APPROVAL_STATUSES, row.status, 'status'),
      workflow: workflowColumn(row.workflow, 'workflow'),
      node_index: int(row.node_index, 'node_index'),
      node_role: oneOf(NODE_ROLES, row.node_role, 'node_role'),
      round: int(row.round, 'round'),
      operator_id: nullableInt(row.operator_id, 'operator_id'),
      operator_name: nullableText(row.operator_name, 'operator_name'),
      updated_at: text(row.updated_at, 'updated_at'),
    }
  );
}
