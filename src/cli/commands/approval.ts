import { readFile } from 'node:fs/promises';
import { ApprovalTemplateService } from '../../core/approvals/approval-template.service.ts';
import { WebhookAdminService } from '../../core/events/webhook-admin.service.ts';
import { DomainError } from '../../core/platform/errors.ts';
import { asMember, idFlag } from '../command.ts';
import type { Handlers } from '../registry.ts';

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

async function workflowFile(path: unknown): Promise<unknown> {
  if (typeof path !== 'string') throw new DomainError('validation_failed', 'The request is invalid', [{ field: 'file', message: 'is required' }]);
  const raw = await readFile(path, 'utf8').catch(() => null);
  if (raw === null) throw new DomainError('validation_failed', 'The request is invalid', [{ field: 'file', message: 'no such file' }]);
  try {
    return JSON.parse(raw);
  } catch {
    throw new DomainError('validation_failed', 'The request is invalid', [{ field: 'file', message: 'is not valid JSON' }]);
  }
}

/**
 * Operator commands of Area D (CONTRACT.md): templates from the workflow file, decisions and
 * resubmissions as a member. Templates need only their own service; the task engine is wired to
 * storage, imports and the outbound guard, so decisions take the whole core.
 */
export const handlers: Handlers<'approval'> = {
  'approval-template create': async (cli, flags) => {
    const scope = await new WebhookAdminService().operatorScope(cli.operatorCtx(), idFlag(flags.team));
    const template = await new ApprovalTemplateService().create({ em: scope.em, teamId: scope.teamId }, await workflowFile(flags.file));
    return { id: template.id };
  },
  'approval decide': async (cli, flags) =>
    (await cli.core()).approvals.engine.decide(await asMember(cli, flags), { taskId: text(flags.task) ?? '', decision: text(flags.decision) ?? '', comment: text(flags.comment) }),
  'approval resubmit': async (cli, flags) => {
    const files = (flags.file as unknown as string[] | undefined) ?? [];
    // a position that is not a number is passed on as NaN, so the core names it out of range
    const positions = ((flags.position as unknown as string[] | undefined) ?? []).map((p) => (/^\d+$/.test(p) ? Number(p) : Number.NaN));
    return (await cli.core()).approvals.tasks.resubmitFiles(await asMember(cli, flags), { taskId: text(flags.task) ?? '', files, positions, comment: text(flags.comment) });
  },
  'approval cancel': async (cli, flags) => (await cli.core()).approvals.engine.cancel(await asMember(cli, flags), text(flags.task) ?? ''),
};
