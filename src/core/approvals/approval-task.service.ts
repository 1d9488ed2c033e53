import { randomUUID } from 'node:crypto';
import { objectKey } from '../assets/imports/library-import.service.ts';
import { pinAllStoredBytes, releaseBytes } from '../assets/recycle-bin/stored-bytes.ts';
import type { Storage } from '../assets/storage/storage.ts';
import type { Ctx, TeamScope, UnitOfWork } from '../platform/ctx.ts';
import { DomainError, invalid } from '../platform/errors.ts';
import { type CommitCreate, type CreateOutcome, type IdempotentOutcome, withHeldIdempotency } from '../platform/idempotency.ts';
import { isUuid } from '../platform/ids.ts';
import { type OutboundGuard, OutboundRefusedError } from '../platform/outbound/outbound-guard.ts';
import { compileInput } from '../platform/validate.ts';
import { CreateApprovalInput } from './approval.schemas.ts';
import type { ApprovalTemplateService } from './approval-template.service.ts';
import type { ApprovalActionResult, ApprovalStatus, ApproverState, NodeRole, SignMode } from './approval-values.ts';
import { assetUrlRefused, type DownloadedAsset, downloadAssets, localAssets, storeAssets } from './asset-downloads.ts';
import { nodeIdOf, nodeKeyOf } from './callbacks.ts';
import { planResubmission } from './resubmission.ts';
import { type ApprovalEngine, lockTask, taskAssetCount, visitOf } from './task-engine.ts';
import { insertTaskWithAssets, taskStatusRow, visitDecisions } from './tasks.queries.ts';
import { countTemplateUse } from './templates.queries.ts';
import { dueTimerRows, markTimersQueued } from './timers.queries.ts';
import { requireMembers } from './workflow.ts';

const checkCreate = compileInput(CreateApprovalInput);

/**
 * How much longer than the download limit an Idempotency-Key claim of createApproval holds: the
 * URL checks before and the storing and commit after the download fit well within it. A repeat
 * waits at most this long for a claimant that died before it could release the key.
 */
const CLAIM_MARGIN_MS = 60_000;

const STATUS_LABELS: Record<ApprovalStatus, string> = {
  PENDING: 'Waiting for the first decision',
  PROCESSING: 'In review',
  REJECTED: 'Rejected: waiting for the submitter to resubmit',
  APPROVED: 'Approved',
  CANCELED: 'Canceled by the submitter',
};

/** taskStatusQuery (spec 2.7). */
export interface TaskStatusView {
  taskId: string;
  status: ApprovalStatus;
  statusLabel: string;
  progressPercent: number;
  currentNodeName: string | null;
  currentNodeSignMode: SignMode | null;
  currentNodeProgress: { approved: number; rejected: number; pending: number };
  currentNodeApprovers: { id: string; name: string; state: ApproverState }[];
  operator: { id: string; name: string } | null;
  updatedAt: string;
  round: number;
  currentNodeId: string | null;
  currentNodeRole: NodeRole | null;
}

/** createApproval and taskStatusQuery (spec 4.8), and the timers' due list. */
export class ApprovalTaskService {
  private readonly guard: OutboundGuard;
  private readonly storage: Storage;
  private readonly templates: ApprovalTemplateService;
  private readonly engine: ApprovalEngine;
  private readonly limits: { timeoutMs: number; maxBytes: number };

  constructor(deps: {
    guard: OutboundGuard;
    storage: Storage;
    templates: ApprovalTemplateService;
    engine: ApprovalEngine;
    limits: { timeoutMs: number; maxBytes: number };
  }) {
    this.guard = deps.guard;
    this.storage = deps.storage;
    this.templates = deps.templates;
    this.engine = deps.engine;
    this.limits = deps.limits;
  }

  /**
   * Spec 4.8 createApproval: every rule of the assets (non-empty, each url non-empty, unique,
   * http(s), public), the template enabled, createdBy a member; each asset downloaded through the
   * outbound guard within the time and size limits, its sha256 recorded. Any failure leaves no
   * task, no stored bytes and the template's usageCount as it was. Returns {taskId}.
   *
   * With an Idempotency-Key the key is claimed before anything is checked against the database or
   * downloaded, and held across the download (withHeldIdempotency): a repeat, concurrent or later,
   * answers the first task without a second download or task, even if the template or the asset
   * hosts changed since.
   */
  async create(ctx: Ctx, input: unknown, idempotencyKey?: string): Promise<IdempotentOutcome<{ taskId: string }>> {
    const body = checkCreate(input);
    if (body.assets.length === 0) throw invalid('assets', 'must hold at least one asset', 'assets_empty');
    const seen = new Set<string>();
    for (const [i, asset] of body.assets.entries()) {
      if (asset.url.trim() === '') throw invalid(`assets[${i}].url`, 'must not be empty', 'asset_url_empty');
      if (seen.has(asset.url)) throw invalid(`assets[${i}].url`, 'appears twice in the request', 'asset_url_duplicate');
      seen.add(asset.url);
    }
    const holdMs = this.limits.timeoutMs + CLAIM_MARGIN_MS;
    return withHeldIdempotency(ctx, { operation: 'approvals.create', key: idempotencyKey, input: body, holdMs }, (commit) =>
      this.createTask(ctx, body, commit),
    );
  }

  private async createTask(ctx: Ctx, body: CreateApprovalInput, commit: CommitCreate<{ taskId: string }>): Promise<CreateOutcome<{ taskId: string }>> {
    const createdBy = Number(body.createdBy);
    // the template and the member are read at once (two reads, one wait); their errors keep their order
    const [found, member] = await Promise.allSettled([this.templates.find(ctx, body.templateId), requireMembers(ctx, new Map([[createdBy, 'createdBy']]))]);
    if (found.status === 'rejected') throw found.reason;
    const template = found.value;
    if (!template.enabled) throw invalid('templateId', 'the template is disabled', 'template_disabled');
    if (member.status === 'rejected') throw member.reason;
    for (const [i, asset] of body.assets.entries()) await this.guardCheck(asset.url, i);
    const downloaded = await downloadAssets(this.guard, this.storage, body.assets, this.limits);
    let added: string[] = [];
    try {
      added = await storeAssets(this.storage, downloaded.assets);
      return await commit(async (tx) => {
        // counting the use locks the template and checks it is still enabled, in one statement
        const workflow = await countTemplateUse(tx, template.id);
        if (!workflow) throw invalid('templateId', 'the template is disabled', 'template_disabled');
        const taskId = randomUUID();
        const assets = downloaded.assets.map((asset, position) => ({
          position,
          name: asset.name,
          url: asset.url,
          sha256: asset.sha256,
          storage_key: objectKey(asset.sha256),
          byte_size: asset.byteSize,
          mime_type: asset.mimeType,
          extension: asset.extension,
        }));
        // the task and its assets in one statement
        await insertTaskWithAssets(
          tx,
          { id: taskId, templateId: template.id, workflow, createdBy, reason: body.reason ?? null, sourceContext: body.sourceContext },
          assets,
        );
        // the bytes are still there, and stay until commit: a release of the same bytes waits for this lock
        await pinAllStoredBytes(
          tx,
          this.storage,
          assets.map((asset) => asset.storage_key),
        );
        const task = await lockTask(tx, taskId, tx.teamId);
        await this.engine.startVisit(tx, task, visitOf(task));
        return { body: { taskId }, etag: null };
      });
    } catch (e) {
      // bytes this request added are removed when its task did not commit, unless something references them by now
      await releaseBytes(ctx, this.storage, this.abandoned(downloaded.assets, added)).catch(() => undefined);
      throw e;
    } finally {
      await downloaded.discard();
    }
  }

  /** `approval resubmit --file` (operator CLI, as the submitting member): new versions from local files. */
  async resubmitFiles(ctx: Ctx, input: { taskId: string; files: string[]; positions?: number[]; comment?: string | null }): Promise<ApprovalActionResult> {
    if (input.files.length === 0) throw invalid('file', 'give at least one file', 'assets_empty');
    if (input.positions && input.positions.length > 0 && input.positions.length !== input.files.length) {
      throw invalid(
        'position',
        `give one position per file (${input.files.length} files, ${input.positions.length} positions), or none to resubmit every asset in order`,
        'resubmit_positions_mixed',
      );
    }
    const items = input.files.map((_, i) => ({ position: input.positions?.[i] }));
    const positions = planResubmission(items, await this.assetCount(ctx, input.taskId));
    return this.resubmitWith(ctx, input, await localAssets(input.files), positions);
  }

  /** GraphQL resubmission: new versions downloaded from public URLs through the outbound guard, as createApproval does. */
  async resubmitUrls(
    ctx: Ctx,
    input: { taskId: string; assets: { url: string; name?: string; position?: number | null }[]; comment?: string | null },
  ): Promise<ApprovalActionResult> {
    // the plan is checked before any download: an ambiguous resubmission costs no transfer
    const positions = planResubmission(input.assets, await this.assetCount(ctx, input.taskId));
    for (const [i, asset] of input.assets.entries()) await this.guardCheck(asset.url, i);
    const downloaded = await downloadAssets(this.guard, this.storage, input.assets, this.limits);
    try {
      return await this.resubmitWith(ctx, input, downloaded.assets, positions);
    } finally {
      await downloaded.discard();
    }
  }

  /** The stored bytes a failed request added, as the release of abandoned bytes takes them. */
  private abandoned(assets: DownloadedAsset[], added: string[]): { sha256: string; storageKey: string }[] {
    return assets.map((a) => ({ sha256: a.sha256, storageKey: objectKey(a.sha256) })).filter((a) => added.includes(a.storageKey));
  }

  /** The task's asset count for checking a resubmission before any download (null: not the caller's task; the locked read answers not_found). */
  private async assetCount(scope: TeamScope, taskId: string): Promise<number | null> {
    return (await taskAssetCount(scope, taskId, scope.teamId)) || null;
  }

  private async resubmitWith(
    ctx: Ctx,
    input: { taskId: string; comment?: string | null },
    assets: DownloadedAsset[],
    positions: number[],
  ): Promise<ApprovalActionResult> {
    const added = await storeAssets(this.storage, assets);
    try {
      return await this.engine.resubmit(ctx, {
        taskId: input.taskId,
        comment: input.comment ?? null,
        assets: assets.map((a, i) => ({
          position: positions[i]!,
          sha256: a.sha256,
          byteSize: a.byteSize,
          name: a.name,
          mimeType: a.mimeType,
          storageKey: objectKey(a.sha256),
        })),
      });
    } catch (e) {
      await releaseBytes(ctx, this.storage, this.abandoned(assets, added)).catch(() => undefined);
      throw e;
    }
  }

  /** Every url is vetted before any download starts, so a bad last asset costs no download. */
  private async guardCheck(url: string, index: number): Promise<void> {
    try {
      await this.guard.checkUrl(url);
    } catch (e) {
      if (!(e instanceof OutboundRefusedError)) throw e;
      throw assetUrlRefused(e, `assets[${index}].url`);
    }
  }

  /** The /approval `taskStatusQuery` service (spec 4.8): its `taskId` is required (`missing_task_id`), then as `status`. */
  async statusQuery(scope: TeamScope, fields: Record<string, unknown>): Promise<TaskStatusView> {
    const { taskId } = fields;
    if (typeof taskId !== 'string' || taskId === '') throw invalid('taskId', 'is required', 'missing_task_id');
    return this.status(scope, taskId);
  }

  /** Spec 4.8 taskStatusQuery: where the task stands; 404 task_not_found for an unknown or another team's task. */
  async status(scope: TeamScope, taskId: string): Promise<TaskStatusView> {
    if (!isUuid(taskId)) throw new DomainError('not_found', 'Task not found', undefined, { subject: 'task' });
    const task = await taskStatusRow(scope, taskId);
    if (!task) throw new DomainError('not_found', 'Task not found', undefined, { subject: 'task' });
    const finished = task.status === 'APPROVED' || task.status === 'CANCELED';
    const visit = visitOf(task);
    const approvers = finished ? [] : await visitDecisions(scope, task.id, nodeKeyOf(visit));
    const count = (state: string) => approvers.filter((a) => a.state === state).length;
    const total = task.workflow.nodes.length;
    return {
      taskId: task.id,
      status: task.status,
      statusLabel: STATUS_LABELS[task.status],
      progressPercent: task.status === 'APPROVED' ? 100 : Math.round((task.node_index / total) * 100),
      currentNodeName: finished ? null : visit.node.name,
      currentNodeSignMode: finished ? null : visit.node.signMode,
      currentNodeProgress: { approved: count('approved'), rejected: count('rejected'), pending: count('pending') },
      currentNodeApprovers: approvers.map((a) => ({ id: String(a.memberId), name: a.name, state: a.state })),
      operator: task.operator_id === null ? null : { id: String(task.operator_id), name: task.operator_name! },
      updatedAt: task.updated_at,
      round: task.round,
      currentNodeId: finished ? null : nodeIdOf(visit),
      currentNodeRole: finished ? null : task.node_role,
    };
  }

  /**
   * The timers due within `horizonMs` that have no delayed job yet (the relay queues them, then
   * marks them with `markTimersQueued`), plus any whose deadline passed 30 s ago without firing and
   * that were not queued in the last 30 s (a job lost with Redis is queued again, once every 30 s,
   * so a relay that takes batch after batch comes to an end). Marking after queueing means a relay
   * that dies in between leaves the timer to the next relay, which queues it again under the same
   * job id.
   */
  async dueTimers(op: UnitOfWork, horizonMs: number, limit: number): Promise<{ taskId: string; nodeKey: string; delayMs: number }[]> {
    const rows = await dueTimerRows(op, horizonMs, limit);
    return rows.map((r) => ({ taskId: r.id, nodeKey: nodeKeyOf(visitOf(r)), delayMs: r.delayMs }));
  }

  /** Notes that these timers' delayed jobs are on the queue. */
  async markTimersQueued(op: UnitOfWork, taskIds: string[]): Promise<void> {
    if (taskIds.length === 0) return;
    await markTimersQueued(op, taskIds);
  }
}
