import type { ParseArgsConfig } from 'node:util';
import type { Core } from '../core/core.ts';

export type Flags = Record<string, string | boolean | undefined>;

/** One operator command: its flags (node:util parseArgs) and the one core operation it calls. */
export interface CliCommand {
  flags: NonNullable<ParseArgsConfig['options']>;
  run: (core: Core, flags: Flags) => Promise<object>;
}

/** A numeric flag as a number; anything else is passed on as is so the core reports it as invalid (naming the flag). */
export function numberFlag(value: string | boolean | undefined): number | string | boolean | undefined {
  return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
}

/** A numeric id flag; anything else is passed on as is so the core reports it as invalid. */
export function idFlag(value: string | boolean | undefined): number {
  return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : (Number.NaN as number);
}

/** An operator acting for the team `--team` as the system (team administration, e.g. custom field definitions). */
export async function asTeam(core: Core, flags: Flags) {
  const actor = await core.access.teamAsOperator(core.operatorCtx(), idFlag(flags.team), 'operator-cli');
  return core.ctxFor(actor, 'cli');
}

/** An operator acting as the member `--user` (CONTRACT.md): the member's own team scopes the operation. */
export async function asMember(core: Core, flags: Flags) {
  const actor = await core.access.memberAsOperator(core.operatorCtx(), idFlag(flags.user));
  return core.ctxFor(actor, 'cli');
}

/** `--ids 1,2,3` as the core's `ids`; a part that is not numeric is passed on, so the core names the flag. */
export function idsFlag(value: string | boolean | undefined): unknown {
  return typeof value === 'string' ? value.split(',').map((part) => numberFlag(part.trim())) : value;
}
