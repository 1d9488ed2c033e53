import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { LibraryImportService } from '../assets/imports/import.ts';
import { pinAllStoredBytes } from '../assets/recycle-bin/stored-bytes.ts';
import type { Storage } from '../assets/storage/storage.ts';
import { memberIdOf, type Ctx, type UnitOfWork, type ActingScope, type CallerScope } from '../platform/ctx.ts';
import { DomainError, notFound, invalid } from '../platform/errors.ts';
import { isoMillisSql } from '../platform/timestamps.ts';
import { intArray, queryOne, queryRows } from '../platform/sql.ts';
import { inTransaction } from '../platform/tx.ts';
import type { Workflow } from './approval.schemas.ts';
import { ACTIVE_APPROVAL_STATUSES, APPROVAL_DECISIONS, isApprovalDecision, type ApprovalActionResult, type ApprovalStatus } from './approval-values.ts';
import { planResubmission } from './resubmission.ts';
import { memberNames, nodeIdOf, nodeKeyOf, nodeObject, recordCallback, visitOf, type NodeVisit } from './callbacks.ts';
import { fireTimeouts } from './timeouts.ts';
import { isUuid } from '../platform/ids.ts';

export { visitOf };

/** A task row as the engine reads it, locked for the transaction. */
export interface TaskRow {
  id: string;
  team_id: number;
  template_id: string;
  workflow: Workflow;
  status: ApprovalStatus;
  created_by_id: number;
  node_index: number;
  node_role: NodeVisit['role'];
  node_status: string;
  round: number;
  timeout_at: string | null;
  auto_import: boolean;
  target_folder: string;
}

/** New bytes for one of the task's assets (`position`: its 0-based place in the task). */
export interface ResubmittedAsset {
  position: number;
  sha256: string;
  byteSize: number;
  name: string;
  mimeType: string | null;
  storageKey: string;
}

/** How many assets a task holds (0 for an unknown task or one of another team). */
export async function taskAssetCount(tx: UnitOfWork, taskId: string, teamId: number): Promise<number> {
  if (!isUuid(taskId)) return 0;
  const row = await queryOne<{ count: number }>(
    tx,
    'select count(distinct position)::int as count from approval_assets where task_id = ?::uuid and team_id = ?',
    [taskId, teamId],
  );
  return row?.count ?? 0;
}

export async function lockTask(tx: UnitOfWork, taskId: string, teamId: number | null): Promise<TaskRow> {
  if (!isUuid(taskId)) throw notFound('Task');
  const row = await queryOne<TaskRow>(
    tx,
    `select t.id, t.team_id, t.template_id, t.workflow, t.status, t.created_by_id, t.node_index, t.node_role, t.node_status, t.round, t.timeout_at::text,
            p.auto_import_enabled as auto_import, p.target_folder
       from approval_tasks t join approval_templates p on p.id = t.template_id and p.team_id = t.team_id
      where t.id = ?::uuid and (?::int is null or t.team_id = ?::int) for update of t`,
    [taskId, teamId, teamId],
  );
  if (!row) throw notFound('Task');
  return row;
}

function refuse(reason: string, message: string): DomainError {
  return new DomainError('forbidden', message, undefined, { reason });
}

/** The acting member of a decision (CLI `--user`, GraphQL X-Shelf-Member); keys and the system are refused. */
function actingMember(ctx: CallerScope): number {
  const id = memberIdOf(ctx.actor);
  if (id === null) throw refuse('member_required', 'Decisions are made by team members: name one (CLI --user, GraphQL header X-Shelf-Member)');
  return id;
}

/**
 * The node engine (spec 3.4, 6.3; docs/approvals.md): decisions, resubmissions, timeouts and
 * cancellation, each in one transaction that also writes its callbacks, in the order of 6.3.
 */
export class ApprovalEngine {
  private readonly deps: { storage: Storage; libraryImport: LibraryImportService };

  constructor(deps: { storage: Storage; libraryImport: LibraryImportService }) {
    this.deps = deps;
  }

  /** Starts a node visit: its approvers' decisions pending, its timeout armed, NODE_TRANSFERRED (when the flow moves) then NODE_STARTED. */
  async startVisit(tx: ActingScope, task: TaskRow, visit: NodeVisit, transfer?: { reason: string; from: Record<string, unknown> }): Promise<void> {
    const approvers = visit.role === 'resubmit_submitter' ? [task.created_by_id] : visit.node.approvers;
    await queryRows(
      tx,
      `insert into approval_decisions (team_id, task_id, node_key, member_id) select ?, ?::uuid, ?, m from unnest(?::int[]) m on conflict do nothing`,
      [tx.teamId, task.id, nodeKeyOf(visit), intArray(approvers)],
    );
    const hours = visit.role === 'resubmit_submitter' ? null : (visit.node.timeout?.hours ?? null);
    const started = await queryOne<{ started: string }>(
      tx,
      `update approval_tasks set node_index = ?, node_role = ?, node_status = 'processing', round = ?, node_started_at = now(),
              timeout_at = case when ?::float8 is null then null else now() + ?::float8 * interval '1 hour' end, timer_queued_at = null, updated_at = now()
        where id = ?::uuid returning ${isoMillisSql('node_started_at')} as started`,
      [visit.index, visit.role, visit.round, hours, hours, task.id],
    );
    Object.assign(task, { node_index: visit.index, node_role: visit.role, round: visit.round, node_status: 'processing' });
    const node = nodeObject(visit, 'processing', approvers.length);
    if (transfer) await recordCallback(tx, task, 'NODE_TRANSFERRED', 'PROCESSING', { transferReason: transfer.reason, fromNode: transfer.from, node });
    await recordCallback(tx, task, 'NODE_STARTED', 'PROCESSING', { node: { ...node, startedAt: started!.started } });
  }

  /** `approval decide` / GraphQL: a pending approver of the current node approves or rejects. */
  async decide(ctx: Ctx, input: { taskId: string; decision: string; comment?: string | null }): Promise<ApprovalActionResult> {
    const memberId = actingMember(ctx);
    const decision = input.decision;
    if (!isApprovalDecision(decision)) {
      throw invalid('decision', `must be one of ${APPROVAL_DECISIONS.join(', ')}`, 'invalid_decision');
    }
    return inTransaction(ctx, async (tx) => {
      const task = await lockTask(tx, input.taskId, tx.teamId);
      if (!ACTIVE_APPROVAL_STATUSES.includes(task.status)) throw refuse('task_finished', `The task is ${task.status}`);
      const visit = visitOf(task);
      if (visit.role === 'resubmit_submitter') throw refuse('not_a_pending_approver', 'The task waits for its submitter to resubmit');
      const decided = await queryOne<{ decided_at: string }>(
        tx,
        `update approval_decisions set state = ?, comment = ?, decided_at = now()
          where task_id = ?::uuid and node_key = ? and member_id = ? and state = 'pending'
          returning ${isoMillisSql('decided_at')} as decided_at`,
        [input.decision, input.comment ?? null, task.id, nodeKeyOf(visit), memberId],
      );
      if (!decided) throw refuse('not_a_pending_approver', 'Only a pending approver of the current node may decide');
      await queryRows(tx, `update approval_tasks set status = 'PROCESSING', operator_id = ?, updated_at = now() where id = ?::uuid`, [memberId, task.id]);
      task.status = 'PROCESSING';
      const decisions = await this.decisionsOf(tx, task, visit);
      const names = await memberNames(tx, [memberId]);
      await recordCallback(tx, task, 'APPROVER_SUBMITTED', 'PROCESSING', {
        node: { nodeId: nodeIdOf(visit), nodeOrder: visit.index + 1, nodeStatus: 'processing', signMode: visit.node.signMode },
        approver: {
          id: String(memberId),
          name: names.get(memberId) ?? null,
          decision: input.decision,
          comment: input.comment ?? null,
          submittedAt: decided.decided_at,
        },
        approverCount: decisions.length,
      });
      const rejected = decisions.some((d) => d.state === 'rejected');
      const approved = visit.node.signMode === 'or' ? input.decision === 'approved' : decisions.every((d) => d.state === 'approved');
      if (rejected) await this.completeRejected(tx, task, visit);
      else if (approved) await this.completeApproved(tx, task, visit, memberId);
      return { taskId: task.id, status: task.status };
    });
  }

  /** `approval resubmit` / GraphQL: the task's creator sends new versions of the assets at the resubmit step. */
  async resubmit(ctx: Ctx, input: { taskId: string; comment?: string | null; assets: ResubmittedAsset[] }): Promise<ApprovalActionResult> {
    const memberId = actingMember(ctx);
    return inTransaction(ctx, async (tx) => {
      const task = await lockTask(tx, input.taskId, tx.teamId);
      if (!ACTIVE_APPROVAL_STATUSES.includes(task.status)) throw refuse('task_finished', `The task is ${task.status}`);
      const visit = visitOf(task);
      if (visit.role !== 'resubmit_submitter' || memberId !== task.created_by_id)
        throw refuse('not_the_resubmitter', "Only the task's submitter may resubmit, at the resubmit step");
      planResubmission(input.assets, await taskAssetCount(tx, task.id, task.team_id));
      const latest = await this.addVersions(tx, task, input.assets);
      const submitted = await queryOne<{ at: string }>(
        tx,
        `update approval_decisions set state = 'approved', comment = ?, decided_at = now() where task_id = ?::uuid and node_key = ? and member_id = ?
         returning ${isoMillisSql('decided_at')} as at`,
        [input.comment ?? null, task.id, nodeKeyOf(visit), memberId],
      );
      await queryRows(tx, `update approval_tasks set status = 'PROCESSING', operator_id = ?, updated_at = now() where id = ?::uuid`, [memberId, task.id]);
      task.status = 'PROCESSING';
      const names = await memberNames(tx, [memberId]);
      await recordCallback(tx, task, 'SUBMITTER_RESUBMITTED', 'PROCESSING', {
        node: nodeObject(visit, 'approved', 1),
        submitter: { id: String(memberId), name: names.get(memberId) ?? null, comment: input.comment ?? null, submittedAt: submitted!.at },
        latestAssets: latest,
        latestAssetCount: latest.length,
      });
      await recordCallback(tx, task, 'NODE_COMPLETED', 'PROCESSING', {
        node: {
          ...nodeObject(visit, 'approved', 1),
          approvers: [{ id: String(memberId), name: names.get(memberId) ?? null, status: 'approved' }],
          completedAt: submitted!.at,
        },
      });
      await this.startVisit(
        tx,
        task,
        { ...visit, role: 'resubmit_approver' },
        { reason: 'RESUBMIT_APPROVER', from: { nodeId: nodeIdOf(visit), nodeOrder: visit.index + 1, nodeStatus: 'approved' } },
      );
      return { taskId: task.id, status: task.status };
    });
  }

  /** Cancel by the task's creator (GraphQL, CLI): an unfinished task becomes CANCELED; no callback (6.3 has none). */
  async cancel(ctx: Ctx, taskId: string): Promise<ApprovalActionResult> {
    const memberId = actingMember(ctx);
    return inTransaction(ctx, async (tx) => {
      const task = await lockTask(tx, taskId, tx.teamId);
      if (!ACTIVE_APPROVAL_STATUSES.includes(task.status)) throw refuse('task_finished', `The task is ${task.status}`);
      if (memberId !== task.created_by_id) throw refuse('not_the_submitter', "Only the task's submitter may cancel it");
      await queryRows(
        tx,
        `update approval_tasks set status = 'CANCELED', operator_id = ?, timeout_at = null, finished_at = now(), updated_at = now() where id = ?::uuid`,
        [memberId, task.id],
      );
      await queryRows(tx, `update approval_decisions set state = 'skipped' where task_id = ?::uuid and state = 'pending'`, [task.id]);
      return { taskId: task.id, status: 'CANCELED' };
    });
  }

  /**
   * A node's timeout (the approval-timeout worker, for the system): does nothing unless the task
   * is still at that node visit and the deadline has come. With a transfer target: NODE_TIMEOUT
   * then NODE_TRANSFERRED, and the target becomes the node's approver; without: one NODE_TIMEOUT
   * and the node waits for manual follow-up (its approvers may still decide). Other overdue timers
   * fire in the same transaction (timeouts.ts).
   */
  async fireTimeout(op: UnitOfWork, input: { taskId: string; nodeKey: string }): Promise<'fired' | 'skipped'> {
    return fireTimeouts(op, input);
  }

  private async decisionsOf(tx: ActingScope, task: TaskRow, visit: NodeVisit): Promise<{ member_id: number; name: string; state: string }[]> {
    return queryRows(
      tx,
      `select d.member_id, m.name, d.state from approval_decisions d join members m on m.id = d.member_id
        where d.task_id = ?::uuid and d.node_key = ? and d.state <> 'skipped' order by d.id`,
      [task.id, nodeKeyOf(visit)],
    );
  }

  private async completeNode(tx: ActingScope, task: TaskRow, visit: NodeVisit, status: 'approved' | 'rejected'): Promise<Record<string, unknown>> {
    await queryRows(tx, `update approval_decisions set state = 'skipped' where task_id = ?::uuid and node_key = ? and state = 'pending'`, [
      task.id,
      nodeKeyOf(visit),
    ]);
    const decisions = await this.decisionsOf(tx, task, visit);
    const approvers = decisions.map((d) => ({ id: String(d.member_id), name: d.name, status: d.state }));
    await recordCallback(tx, task, 'NODE_COMPLETED', 'PROCESSING', {
      node: { ...nodeObject(visit, status, approvers.length), approvers, completedAt: new Date().toISOString() },
    });
    return { nodeId: nodeIdOf(visit), nodeOrder: visit.index + 1, nodeStatus: status };
  }

  /** A rejection opens a new round at the resubmit step of the rejected node (the task shows REJECTED until the submitter resubmits). */
  private async completeRejected(tx: ActingScope, task: TaskRow, visit: NodeVisit): Promise<void> {
    const from = await this.completeNode(tx, task, visit, 'rejected');
    await queryRows(tx, `update approval_tasks set status = 'REJECTED' where id = ?::uuid`, [task.id]);
    task.status = 'REJECTED';
    await this.startVisit(tx, task, { ...visit, role: 'resubmit_submitter', round: visit.round + 1 }, { reason: 'RESUBMIT_SUBMITTER', from });
  }

  private async completeApproved(tx: ActingScope, task: TaskRow, visit: NodeVisit, operatorId: number): Promise<void> {
    const from = await this.completeNode(tx, task, visit, 'approved');
    const nextIndex = visit.index + 1;
    if (nextIndex < task.workflow.nodes.length) {
      await this.startVisit(
        tx,
        task,
        { index: nextIndex, role: 'normal', round: visit.round, node: task.workflow.nodes[nextIndex]! },
        { reason: 'NEXT_NODE', from },
      );
      return;
    }
    const finished = await queryOne<{ at: string }>(
      tx,
      `update approval_tasks set status = 'APPROVED', timeout_at = null, finished_at = now(), updated_at = now() where id = ?::uuid
       returning ${isoMillisSql('finished_at')} as at`,
      [task.id],
    );
    task.status = 'APPROVED';
    const names = await memberNames(tx, [operatorId]);
    await recordCallback(tx, task, 'TASK_APPROVED', 'APPROVED', {
      operator: { id: String(operatorId), name: names.get(operatorId) ?? null },
      finishedAt: finished!.at,
    });
    if (task.auto_import) await this.importApproved(tx, task);
  }

  /**
   * autoImportEnabled: the final version of each asset goes into the template's target folder
   * through the library's import (its events fire too). The files belong to the task's submitter,
   * who supplied them; the approver who finished the task is its `operator`, not the files' owner.
   */
  private async importApproved(tx: ActingScope, task: TaskRow): Promise<void> {
    const assets = await queryRows<{ name: string; storage_key: string }>(
      tx,
      `select distinct on (position) name, storage_key from approval_assets where task_id = ?::uuid order by position, version desc`,
      [task.id],
    );
    const dir = await mkdtemp(join(tmpdir(), 'shelf-approved-'));
    try {
      for (const [i, asset] of assets.entries()) {
        const opened = await this.deps.storage.open(asset.storage_key);
        if (!opened) throw new DomainError('internal_server_error', 'An approved asset is missing from storage');
        const path = join(dir, String(i));
        await pipeline(opened.stream, createWriteStream(path));
        await this.deps.libraryImport.importFile(tx, {
          team: task.team_id,
          file: path,
          name: asset.name,
          folder: task.target_folder || '/',
          user: task.created_by_id,
        });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Records a new version of each resubmitted asset (positions in order) and returns the latestAssets objects of 6.3. */
  private async addVersions(tx: ActingScope, task: TaskRow, assets: ResubmittedAsset[]): Promise<Record<string, unknown>[]> {
    const latest: Record<string, unknown>[] = [];
    await pinAllStoredBytes(
      tx,
      this.deps.storage,
      assets.map((asset) => asset.storageKey),
    );
    for (const { position, ...asset } of assets) {
      const previous = await queryOne<{ version: number; storage_key: string }>(
        tx,
        `select version, storage_key from approval_assets where task_id = ?::uuid and position = ? order by version desc limit 1`,
        [task.id, position],
      );
      const row = await queryOne<{ id: number; version: number; at: string }>(
        tx,
        `insert into approval_assets (team_id, task_id, position, version, name, url, sha256, storage_key, byte_size, mime_type)
         values (?, ?::uuid, ?, ?, ?, null, ?, ?, ?, ?)
         returning id, version, ${isoMillisSql('created_at')} as at`,
        [tx.teamId, task.id, position, (previous?.version ?? 0) + 1, asset.name, asset.sha256, asset.storageKey, asset.byteSize, asset.mimeType],
      );
      latest.push({
        assetId: String(row!.id),
        filePathId: null,
        version: row!.version,
        oldStorePath: previous?.storage_key ?? null,
        newStorePath: asset.storageKey,
        updatedAt: row!.at,
        sha256: asset.sha256,
      });
    }
    return latest;
  }
}
