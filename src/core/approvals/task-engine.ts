import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { LibraryImportService } from '../assets/imports/library-import.service.ts';
import { pinAllStoredBytes } from '../assets/recycle-bin/stored-bytes.ts';
import type { Storage } from '../assets/storage/storage.ts';
import { type ActingScope, type CallerScope, type Ctx, memberIdOf, type UnitOfWork } from '../platform/ctx.ts';
import { DomainError, invalid, notFound } from '../platform/errors.ts';
import { isUuid } from '../platform/ids.ts';
import { inTransaction } from '../platform/tx.ts';
import { ACTIVE_APPROVAL_STATUSES, APPROVAL_DECISIONS, type ApprovalActionResult, isApprovalDecision } from './approval-values.ts';
import { memberNames, type NodeVisit, nodeIdOf, nodeKeyOf, nodeObject, recordCallback, visitOf } from './callbacks.ts';
import { planResubmission } from './resubmission.ts';
import {
  addPendingDecisions,
  cancelTask,
  countTaskAssets,
  finalAssetVersions,
  insertAssetVersion,
  latestAssetVersion,
  lockTaskRow,
  markTaskApproved,
  markTaskProcessing,
  markTaskRejected,
  recordDecision,
  recordResubmission,
  skipPendingDecisions,
  startNodeVisit,
  type TaskRow,
  visitDecisions,
} from './tasks.queries.ts';
import { fireTimeouts } from './timeouts.ts';

export { type TaskRow, visitOf };

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
  return countTaskAssets(tx, taskId, teamId);
}

export async function lockTask(tx: UnitOfWork, taskId: string, teamId: number | null): Promise<TaskRow> {
  if (!isUuid(taskId)) throw notFound('Task');
  const row = await lockTaskRow(tx, taskId, teamId);
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
    await addPendingDecisions(tx, task.id, nodeKeyOf(visit), approvers);
    const hours = visit.role === 'resubmit_submitter' ? null : (visit.node.timeout?.hours ?? null);
    const started = await startNodeVisit(tx, task.id, visit, hours);
    Object.assign(task, { node_index: visit.index, node_role: visit.role, round: visit.round, node_status: 'processing' });
    const node = nodeObject(visit, 'processing', approvers.length);
    if (transfer) await recordCallback(tx, task, 'NODE_TRANSFERRED', 'PROCESSING', { transferReason: transfer.reason, fromNode: transfer.from, node });
    await recordCallback(tx, task, 'NODE_STARTED', 'PROCESSING', { node: { ...node, startedAt: started } });
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
      const decidedAt = await recordDecision(tx, task.id, nodeKeyOf(visit), memberId, input.decision, input.comment ?? null);
      if (decidedAt === null) throw refuse('not_a_pending_approver', 'Only a pending approver of the current node may decide');
      await markTaskProcessing(tx, task.id, memberId);
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
          submittedAt: decidedAt,
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
      const submittedAt = await recordResubmission(tx, task.id, nodeKeyOf(visit), memberId, input.comment ?? null);
      await markTaskProcessing(tx, task.id, memberId);
      task.status = 'PROCESSING';
      const names = await memberNames(tx, [memberId]);
      await recordCallback(tx, task, 'SUBMITTER_RESUBMITTED', 'PROCESSING', {
        node: nodeObject(visit, 'approved', 1),
        submitter: { id: String(memberId), name: names.get(memberId) ?? null, comment: input.comment ?? null, submittedAt },
        latestAssets: latest,
        latestAssetCount: latest.length,
      });
      await recordCallback(tx, task, 'NODE_COMPLETED', 'PROCESSING', {
        node: {
          ...nodeObject(visit, 'approved', 1),
          approvers: [{ id: String(memberId), name: names.get(memberId) ?? null, status: 'approved' }],
          completedAt: submittedAt,
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
      await cancelTask(tx, task.id, memberId);
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

  private async decisionsOf(tx: ActingScope, task: TaskRow, visit: NodeVisit): Promise<{ memberId: number; name: string; state: string }[]> {
    return visitDecisions(tx, task.id, nodeKeyOf(visit));
  }

  private async completeNode(tx: ActingScope, task: TaskRow, visit: NodeVisit, status: 'approved' | 'rejected'): Promise<Record<string, unknown>> {
    await skipPendingDecisions(tx, task.id, nodeKeyOf(visit));
    const decisions = await this.decisionsOf(tx, task, visit);
    const approvers = decisions.map((d) => ({ id: String(d.memberId), name: d.name, status: d.state }));
    await recordCallback(tx, task, 'NODE_COMPLETED', 'PROCESSING', {
      node: { ...nodeObject(visit, status, approvers.length), approvers, completedAt: new Date().toISOString() },
    });
    return { nodeId: nodeIdOf(visit), nodeOrder: visit.index + 1, nodeStatus: status };
  }

  /** A rejection opens a new round at the resubmit step of the rejected node (the task shows REJECTED until the submitter resubmits). */
  private async completeRejected(tx: ActingScope, task: TaskRow, visit: NodeVisit): Promise<void> {
    const from = await this.completeNode(tx, task, visit, 'rejected');
    await markTaskRejected(tx, task.id);
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
    const finishedAt = await markTaskApproved(tx, task.id);
    task.status = 'APPROVED';
    const names = await memberNames(tx, [operatorId]);
    await recordCallback(tx, task, 'TASK_APPROVED', 'APPROVED', {
      operator: { id: String(operatorId), name: names.get(operatorId) ?? null },
      finishedAt,
    });
    if (task.auto_import) await this.importApproved(tx, task);
  }

  /**
   * autoImportEnabled: the final version of each asset goes into the template's target folder
   * through the library's import (its events fire too). The files belong to the task's submitter,
   * who supplied them; the approver who finished the task is its `operator`, not the files' owner.
   */
  private async importApproved(tx: ActingScope, task: TaskRow): Promise<void> {
    const assets = await finalAssetVersions(tx, task.id);
    const dir = await mkdtemp(join(tmpdir(), 'shelf-approved-'));
    try {
      for (const [i, asset] of assets.entries()) {
        const opened = await this.deps.storage.open(asset.storageKey);
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
      const previous = await latestAssetVersion(tx, task.id, position);
      const row = await insertAssetVersion(tx, task.id, position, (previous?.version ?? 0) + 1, asset);
      latest.push({
        assetId: String(row.id),
        filePathId: null,
        version: row.version,
        oldStorePath: previous?.storageKey ?? null,
        newStorePath: asset.storageKey,
        updatedAt: row.at,
        sha256: asset.sha256,
      });
    }
    return latest;
  }
}
