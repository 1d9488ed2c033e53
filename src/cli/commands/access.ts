import { AccessService } from '../../core/access/access.service.ts';
import { idFlag } from '../command.ts';
import type { Handlers } from '../registry.ts';

const access = new AccessService();
const text = (value: string | boolean | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** Operator commands for teams, members and API keys (CONTRACT.md). */
export const handlers: Handlers<'access'> = {
  'team create': (cli, flags) => access.createTeam(cli.operatorCtx(), { name: text(flags.name) }),
  'team enable-subscriptions': (cli, flags) => access.enableSubscriptions(cli.operatorCtx(), { teamId: idFlag(flags.team) }),
  'member add': (cli, flags) => access.addMember(cli.operatorCtx(), { teamId: idFlag(flags.team), name: text(flags.name) }),
  'key create': async (cli, flags) => {
    const created = await access.createKey(cli.operatorCtx(), { teamId: idFlag(flags.team), role: text(flags.role), expiresAt: text(flags['expires-at']) });
    return { keyId: created.keyId, key: created.key, role: created.role, expiresAt: created.expiresAt };
  },
  'key set-role': (cli, flags) => access.setKeyRole(cli.operatorCtx(), { keyId: idFlag(flags['key-id']), role: text(flags.role) }),
  'key revoke': (cli, flags) => access.revokeKey(cli.operatorCtx(), { keyId: idFlag(flags['key-id']) }),
};
