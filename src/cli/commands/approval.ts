import { readFile } from 'node:fs/promises';
import { DomainError } from '../../core/platform/errors.ts';
import { asMember, idFlag, type CliCommand } from '../command.ts';

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

/** Operator commands of Area D (CONTRACT.md): templates from the workflow file, decisions and resubmissions as a member. */
export const approvalCommands: Record<string, CliCommand> = {
  'approval-template create': {
    flags: { team: { type: 'string' }, file: { type: 'string' } },
    run: async (core, flags) => {
      const scope = await core.events.webhooks.operatorScope(core.operatorCtx(), idFlag(flags.team));
      const template = await core.approvals.templates.create({ em: scope.em, teamId: scope.teamId }, await workflowFile(flags.file));
      return { id: template.id };
    },
  },
  'approval decide': {
    flags: { task: { type: 'string' }, user: { type: 'string' }, decision: { type: 'string' }, comment: { type: 'string' } },
    run: async (core, flags) => core.approvals.engine.decide(await asMember(core, flags), { taskId: text(flags.task) ?? '', decision: text(flags.decision) ?? '', comment: text(flags.comment) }),
  },
  'approval resubmit': {
    flags: { task: { type: 'string' }, user: { type: 'string' }, file: { type: 'string', multiple: true }, position: { type: 'string', multiple: true }, comment: { type: 'string' } },
    run: async (core, flags) => {
      const files = (flags.file as unknown as string[] | undefined) ?? [];
      // a position that is not a number is passed on as NaN, so the core names it out of range
      const positions = ((flags.position as unknown as string[] | undefined) ?? []).map((p) => (/^\d+$/.test(p) ? Number(p) : Number.NaN));
      return core.approvals.tasks.resubmitFiles(await asMember(core, flags), { taskId: text(flags.task) ?? '', files, positions, comment: text(flags.comment) });
    },
  },
  'approval cancel': {
    flags: { task: { type: 'string' }, user: { type: 'string' } },
    run: async (core, flags) => core.approvals.engine.cancel(await asMember(core, flags), text(flags.task) ?? ''),
  },
};
