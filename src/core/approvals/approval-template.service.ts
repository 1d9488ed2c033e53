import { requirePermission } from '../access/roles.ts';
import { type SizedPage, sizedPage } from '../platform/answer-budget.ts';
import type { Ctx, TeamScope } from '../platform/ctx.ts';
import { notFound } from '../platform/errors.ts';
import { isUuid } from '../platform/ids.ts';
import { MAX_PAGE_SIZE, normalizePage } from '../platform/pagination.ts';
import { inTransaction } from '../platform/tx.ts';
import { compileInput } from '../platform/validate.ts';
import { ApprovalTemplateInput, type ApprovalTemplateView, type Workflow } from './approval.schemas.ts';
import {
  findTemplate,
  insertTemplate,
  setTemplateEnabled,
  sizedTemplatesPage,
  type TemplateDefinition,
  templatesByIds,
  updateTemplate,
} from './templates.queries.ts';
import { checkedWorkflow, requireMembers } from './workflow.ts';

const checkTemplate = compileInput(ApprovalTemplateInput);

/** Templates in a page of approvalTemplates when pageSize is not given (the most a page may hold). */
export const APPROVAL_TEMPLATES_PAGE_SIZE = MAX_PAGE_SIZE;

/** Templates of the team, oldest first, from `offset` (at most `limit`; null: all), read batch by batch. */
async function sizedTemplates(scope: TeamScope, limit: number | null, offset: number): Promise<SizedPage<ApprovalTemplateView, null>> {
  const rows = await sizedTemplatesPage(scope, limit, offset);
  return sizedPage(
    null,
    rows,
    (ids) => templatesByIds(scope, ids),
    (template) => template.id,
  );
}

/** A checked template body's definition, with the defaults of absent fields. */
function definitionOf(body: ReturnType<typeof checkTemplate>, workflow: Workflow): TemplateDefinition {
  return {
    name: body.name,
    description: body.description ?? '',
    enabled: body.enabled ?? true,
    autoImportEnabled: body.autoImportEnabled ?? false,
    targetFolder: body.targetFolder ?? '',
    workflow,
  };
}

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
      return insertTemplate(tx, definitionOf(body, workflow), createdBy);
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
      return (await updateTemplate(tx, templateId, definitionOf(body, workflow)))!;
    });
  }

  /** GraphQL: enables or disables a template; a disabled template starts no task. */
  async setEnabled(ctx: Ctx, templateId: string, enabled: boolean): Promise<ApprovalTemplateView> {
    requirePermission(ctx, 'templates:update');
    return inTransaction(ctx, async (tx) => {
      await this.find(tx, templateId);
      return (await setTemplateEnabled(tx, templateId, enabled))!;
    });
  }

  /**
   * listTemplates (spec 4.8): every template of the team, oldest first, sized and read in batches
   * (the spec's answer is one array without paging, so REST streams it: docs/approvals.md "Listing templates").
   */
  async listAll(scope: TeamScope): Promise<SizedPage<ApprovalTemplateView, null>> {
    return sizedTemplates(scope, null, 0);
  }

  /**
   * A page of the team's templates, oldest first (GraphQL approvalTemplates): `pageSize` at most 100,
   * and 100 by default, so a team with up to 100 templates gets them all in one page as before.
   */
  async page(scope: TeamScope, query: { page?: number | null; pageSize?: number | null }): Promise<SizedPage<ApprovalTemplateView, null>> {
    const page = normalizePage({ page: query.page, pageSize: query.pageSize ?? APPROVAL_TEMPLATES_PAGE_SIZE });
    return sizedTemplates(scope, page.pageSize, (page.page - 1) * page.pageSize);
  }

  /** A template of the team; 404 template_not_found (another team's included). */
  async find(scope: TeamScope, templateId: string): Promise<ApprovalTemplateView> {
    if (!isUuid(templateId)) throw notFound('Template');
    const row = await findTemplate(scope, templateId);
    if (!row) throw notFound('Template');
    return row;
  }
}
