import type { Ctx } from '../platform/ctx.ts';
import type { ApprovalTaskService } from './approval-task.service.ts';
import type { ApprovalActionResult } from './approval-values.ts';
import type { ApprovalEngine } from './task-engine.ts';

/** New versions of a task's assets, downloaded from public URLs through the outbound guard (GraphQL). */
export interface ResubmitFromUrls {
  taskId: string;
  comment?: string | null;
  urls: { url: string; name?: string; position?: number | null }[];
}

/** New versions of a task's assets from local files (the operator CLI, as the submitting member). */
export interface ResubmitFromFiles {
  taskId: string;
  comment?: string | null;
  files: string[];
  /** One 0-based task position per file, or none to resubmit every asset in order. */
  positions?: number[];
}

/**
 * What a member does to a running task, in one place for every adapter: decide, resubmit and
 * cancel. Callers need not know that decisions and cancels are the node engine's while a
 * resubmission first fetches and stores bytes in the task service; the rules (who may act, at
 * which step, which values) are those of the operations this delegates to.
 */
export class ApprovalActionService {
  private readonly engine: ApprovalEngine;
  private readonly tasks: ApprovalTaskService;

  constructor(deps: { engine: ApprovalEngine; tasks: ApprovalTaskService }) {
    this.engine = deps.engine;
    this.tasks = deps.tasks;
  }

  /** A pending approver of the current node approves or rejects; a decision outside APPROVAL_DECISIONS is validation_failed (invalid_decision). */
  decide(ctx: Ctx, input: { taskId: string; decision: string; comment?: string | null }): Promise<ApprovalActionResult> {
    return this.engine.decide(ctx, input);
  }

  /** The task's submitter sends new versions at the resubmit step, from URLs or from local files. */
  resubmit(ctx: Ctx, input: ResubmitFromUrls | ResubmitFromFiles): Promise<ApprovalActionResult> {
    if ('urls' in input) return this.tasks.resubmitUrls(ctx, { taskId: input.taskId, comment: input.comment, assets: input.urls });
    return this.tasks.resubmitFiles(ctx, input);
  }

  /** The task's submitter cancels an unfinished task. */
  cancel(ctx: Ctx, taskId: string): Promise<ApprovalActionResult> {
    return this.engine.cancel(ctx, taskId);
  }
}
