import type { Core } from '../../core/core.ts';
import { idsFlag, numberFlag, type CliCommand, type Flags } from '../command.ts';

/** The flags that were given, as the core's input (its keys are the flag names, so errors name the flag). */
function defined(entries: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));
}

function idsInput(flags: Flags): Record<string, unknown> {
  return defined({ team: numberFlag(flags.team), ids: idsFlag(flags.ids), user: numberFlag(flags.user) });
}

const ID_FLAGS = { team: { type: 'string' }, ids: { type: 'string' }, user: { type: 'string' } } as const;

/**
 * Pending inbound (docs/library.md "Pending inbound"): `asset import --pending` holds imports;
 * these list, confirm and discard them. Confirm and discard act as the member `--user` of the
 * team, or as the system without one.
 */
export const assetPendingCommands: Record<string, CliCommand> = {
  'asset pending list': {
    flags: { team: { type: 'string' }, page: { type: 'string' }, 'page-size': { type: 'string' } },
    run: (core: Core, flags) =>
      core.assets.pendingInbound.listAsOperator(core.operatorCtx(), defined({ team: numberFlag(flags.team), page: numberFlag(flags.page), pageSize: numberFlag(flags['page-size']) })),
  },
  'asset pending confirm': {
    flags: ID_FLAGS,
    run: (core, flags) => core.assets.pendingInbound.confirmAsOperator(core.operatorCtx(), idsInput(flags)),
  },
  'asset pending discard': {
    flags: ID_FLAGS,
    run: (core, flags) => core.assets.pendingInbound.discardAsOperator(core.operatorCtx(), idsInput(flags)),
  },
};
