import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { operatorAsMember, operatorAsTeam, operatorTeamScope } from '../core/access/operator-scopes.ts';
import type { Core } from '../core/core.ts';
import type { Actor, Ctx, TeamScope, UnitOfWork } from '../core/platform/ctx.ts';

export type Flags = Record<string, string | boolean | undefined>;

/**
 * What a command gets to reach the core. A command constructs the one service it calls (most take
 * no collaborators, or only the storage) so a run loads that service's modules and no others;
 * commands whose services are wired to others ask for the whole core (`core()`), which createCore
 * builds exactly as the service does.
 */
export interface Cli {
  readonly config: Config;
  readonly orm: MikroORM;
  /** A unit of work for operator commands (CoreServices.operatorCtx). */
  operatorCtx(): UnitOfWork;
  /** A unit of work acting as `actor` (CoreServices.ctxFor). */
  ctxFor(actor: Actor): Ctx;
  /** The whole domain core, with the service's link-signing secret. */
  core(): Promise<Core>;
}

/** A numeric flag as a number; anything else is passed on as is so the core reports it as invalid (naming the flag). */
export function numberFlag(value: string | boolean | undefined): number | string | boolean | undefined {
  return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
}

/** A numeric id flag; anything else is passed on as is so the core reports it as invalid. */
export function idFlag(value: string | boolean | undefined): number {
  return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : (Number.NaN as number);
}

// Commands act in the contexts core/access/operator-scopes.ts builds, and only through these.

/** An operator acting for the team `--team` as the system (team administration, e.g. custom field definitions). */
export async function asTeam(cli: Cli, flags: Flags): Promise<Ctx> {
  return cli.ctxFor(await operatorAsTeam(cli.operatorCtx(), idFlag(flags.team)));
}

/** An operator acting as the member `--user` (CONTRACT.md): the member's own team scopes the operation. */
export async function asMember(cli: Cli, flags: Flags): Promise<Ctx> {
  return cli.ctxFor(await operatorAsMember(cli.operatorCtx(), idFlag(flags.user)));
}

/** The team `--team` names, for operations that record no caller (webhook administration, approval templates). */
export function teamScope(cli: Cli, flags: Flags): Promise<TeamScope> {
  return operatorTeamScope(cli.operatorCtx(), idFlag(flags.team));
}

/** `--ids 1,2,3` as the core's `ids`; a part that is not numeric is passed on, so the core names the flag. */
export function idsFlag(value: string | boolean | undefined): unknown {
  return typeof value === 'string' ? value.split(',').map((part) => numberFlag(part.trim())) : value;
}

/** The flags that were given, as the core's input (its keys are the flag names, so errors name the flag). */
export function given(entries: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));
}
