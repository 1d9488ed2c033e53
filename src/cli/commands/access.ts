import type { CliCommand } from '../command.ts';
import { idFlag } from '../command.ts';

/** Operator commands for teams, members and API keys (CONTRACT.md). */
export const accessCommands: Record<string, CliCommand> = {
  'team create': {
    flags: { name: { type: 'string' } },
    run: (core, flags) => core.access.createTeam(core.operatorCtx(), { name: flags.name as string | undefined }),
  },
  'team enable-subscriptions': {
    flags: { team: { type: 'string' } },
    run: (core, flags) => core.access.enableSubscriptions(core.operatorCtx(), { teamId: idFlag(flags.team) }),
  },
  'member add': {
    flags: { team: { type: 'string' }, name: { type: 'string' } },
    run: (core, flags) => core.access.addMember(core.operatorCtx(), { teamId: idFlag(flags.team), name: flags.name as string | undefined }),
  },
  'key create': {
    flags: { team: { type: 'string' }, role: { type: 'string' }, 'expires-at': { type: 'string' } },
    run: async (core, flags) => {
      const created = await core.access.createKey(core.operatorCtx(), {
        teamId: idFlag(flags.team),
        role: flags.role as string | undefined,
        expiresAt: flags['expires-at'] as string | undefined,
      });
      return { keyId: created.keyId, key: created.key, role: created.role, expiresAt: created.expiresAt };
    },
  },
  'key set-role': {
    flags: { 'key-id': { type: 'string' }, role: { type: 'string' } },
    run: (core, flags) => core.access.setKeyRole(core.operatorCtx(), { keyId: idFlag(flags['key-id']), role: flags.role as string | undefined }),
  },
  'key revoke': {
    flags: { 'key-id': { type: 'string' } },
    run: (core, flags) => core.access.revokeKey(core.operatorCtx(), { keyId: idFlag(flags['key-id']) }),
  },
};
