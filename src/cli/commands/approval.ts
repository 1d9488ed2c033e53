import { readFile } from 'node:fs/promises';
import { ApprovalTemplateService } from '../../core/approvals/approval-template.service.ts';
import { invalid } from '../../core/platform/errors.ts';
import { asMember, teamScope } from '../command.ts';
import type { Handlers } from '../registry.ts';

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

async function workflowFile(path: unknown): Promise<unknown> {
  if (typeof path !== 'string') throw invalid('file', 'is required');
  const raw = await readFile(path, 'utf8').catch(() => null);
  if (raw === null) throw invalid('file', 'no such file');
  try {
    return JSON.parse(raw);
  } catch {
    throw invalid('file', 'is not valid JSON');
  }
}

/**
 * Operator commands of Area D (CONTRACT.md): templates from the workflow file, decisions and
 * resubmissions as a member, through the approvals' one entry point for a member's actions. Templates
 * need only their own service; the task engine is wired to storage, imports and the outbound guard,
 * so decisions take the whole core.
 */
export const handlers: Handlers<'approval'> = {
  'approval-template create': async (cli, flags) => {
    const scope = await teamScope(cli, flags);
    const template = await new ApprovalTemplateService().create(scope, await workflowFile(flags.file));
    return { id: template.id };
  },
  'approval decide': async (cli, flags) =>
    (await cli.core()).approvals.actions.decide(await asMember(cli, flags), {
      taskId: text(flags.task) ?? '',
      decision: text(flags.decision) ?? '',
      comment: text(flags.comment),
    }),
  'approval resubmit': async (cli, flags) => {
    const files = (flags.file as unknown as string[] | undefined) ?? [];
    // a position that is not a number is passed on as NaN, so the core names it out of range
    const positions = ((flags.position as unknown as string[] | undefined) ?? []).map((p) => (/^\d+$/.test(p) ? Number(p) : Number.NaN));
    return (await cli.core()).approvals.actions.resubmit(await asMember(cli, flags), {
      taskId: text(flags.task) ?? '',
      files,
      positions,
      comment: text(flags.comment),
    });
  },
  'approval cancel': async (cli, flags) => (await cli.core()).approvals.actions.cancel(await asMember(cli, flags), text(flags.task) ?? ''),
};
