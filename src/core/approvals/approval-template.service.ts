import { randomUUID } from 'node:crypto';
import { requirePermission } from '../access/roles.ts';
import type { Ctx, TeamScope } from '../platform/ctx.ts';
import { notFound } from '../platform/errors.ts';
import { queryOne, queryRows } from '../platform/sql.ts';
import { isoSql } from '../platform/timestamps.ts';
import { inTransaction } from '../platform/tx.ts';
import { compileInput } from '../platform/validate.ts';
import { ApprovalTemplateInput, type Workflow } from './approval.schemas.ts';
import { checkedWorkflow, requireMembers } from './workflow.ts';
import { isUuid } from '../platform/ids.ts';

const checkTemplate = compileInput(ApprovalTemplateInput);

/** An approval template as listTemplates (spec 2.7) and GraphQL show it. */
export interface ApprovalTemplateView {
  id: string;
  name: string;
  description: string;
  enabled: boolean;
  usageCount: number;
  autoImportEnabled: boolean;
  targetFolder: string;
  workflow: Workflow;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

const COLUMNS = `id, name, description, enabled, usage_count as "usageCount", auto_import_enabled as "autoImportEnabled", target_folder as "targetFolder",
  workflow, created_by_id::text as "createdBy", ${isoSql('created_at')} as "createdAt", ${isoSql('updated_at')} as "updatedAt"`;

/**
 * Approval templates (spec 2.7; docs/approvals.md): created from the workflow file of CONTRACT.md
 * by operators and through GraphQL by manage keys, updated, enabled and disabled. A running task
 * keeps the frozen copy it started with.
 */
export class ApprovalTemplateService {
  /** `approval-template create` and GraphQL: validates the file, its members, and stores the template. */
  async create(scope: TeamScope, input: unknown): Promise<ApprovalTemplateView> {
    const body = checkTemplate(input);
    return inTransaction(scope, async (tx) => {
      const workflow = await checkedWorkflow(tx, body.workflow);
      const createdBy = body.createdBy === undefined ? null : Number(body.createdBy);
      if (createdBy !== null) await requireMembers(tx, new Map([[createdBy, 'createdBy']]));
      const row = await queryOne<ApprovalTemplateView>(
        tx,
        `insert into approval_templates (id, team_id, name, description, enabled, auto_import_enabled, target_folder, workflow, created_by_id)
         values (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?) returning ${COLUMNS}`,
        [
          randomUUID(),
          tx.teamId,
          body.name,
          body.description ?? '',
          body.enabled ?? true,
          body.autoImportEnabled ?? false,
          body.targetFolder ?? '',
          JSON.stringify(workflow),
          createdBy,
        ],
      );
      return row!;
    });
  }

  /** GraphQL: a manage key (or a member acting through one) creates a template; the rules are those of `create`. */
  async createForCaller(ctx: Ctx, input: unknown): Promise<ApprovalTemplateView> {
    requirePermission(ctx, 'templates:create');
    return this.create(ctx, input);
  }

  /** GraphQL: replaces a template's definition (tasks already started keep their copy). */
  async update(ctx: Ctx, templateId: string, input: unknown): Promise<ApprovalTemplateView> {
    requirePermission(ctx, 'templates:update');
    const body = checkTemplate(input);
    return inTransaction(ctx, async (tx) => {
      await this.find(tx, templateId);
      const workflow = await checkedWorkflow(tx, body.workflow);
      const row = await queryOne<ApprovalTemplateView>(
        tx,
        `update approval_templates set name = ?, description = ?, enabled = ?, auto_import_enabled = ?, target_folder = ?, workflow = ?::jsonb, updated_at = now()
          where id = ?::uuid and team_id = ? returning ${COLUMNS}`,
        [
          body.name,
          body.description ?? '',
          body.enabled ?? true,
          body.autoImportEnabled ?? false,
          body.targetFolder ?? '',
          JSON.stringify(workflow),
          templateId,
          tx.teamId,
        ],
      );
      return row!;
    });
  }

  /** GraphQL: enables or disables a template; a disabled template starts no task. */
  async setEnabled(ctx: Ctx, templateId: string, enabled: boolean): Promise<ApprovalTemplateView> {
    requirePermission(ctx, 'templates:update');
    return inTransaction(ctx, async (tx) => {
      await this.find(tx, templateId);
      return (await queryOne<ApprovalTemplateView>(
        tx,
        `update approval_templates set enabled = ?, updated_at = now() where id = ?::uuid and team_id = ? returning ${COLUMNS}`,
        [enabled, templateId, tx.teamId],
      ))!;
    });
  }

  /** listTemplates (spec 4.8): the team's templates, oldest first. */
  async list(scope: TeamScope): Promise<ApprovalTemplateView[]> {
    return queryRows<ApprovalTemplateView>(scope, `select ${COLUMNS} from approval_templates where team_id = ? order by created_at, id`, [scope.teamId]);
  }

  /** A template of the team; 404 template_not_found (another team's included). */
  async find(scope: TeamScope, templateId: string): Promise<ApprovalTemplateView> {
    if (!isUuid(templateId)) throw notFound('Template');
    const row = await queryOne<ApprovalTemplateView>(scope, `select ${COLUMNS} from approval_templates where id = ?::uuid and team_id = ?`, [
      templateId,
      scope.teamId,
    ]);
    if (!row) throw notFound('Template');
    return row;
  }
}
