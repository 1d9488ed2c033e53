import { LibraryImportService } from '../../core/assets/imports/library-import.service.ts';
import { PendingInboundService } from '../../core/assets/pending-inbound/pending-inbound.service.ts';
import { createStorage } from '../../core/assets/storage/create-storage.ts';
import { type Cli, type Flags, given, idsFlag, numberFlag } from '../command.ts';
import type { Handlers } from '../registry.ts';

function idsInput(flags: Flags): Record<string, unknown> {
  return given({ team: numberFlag(flags.team), ids: idsFlag(flags.ids), user: numberFlag(flags.user) });
}

/** Pending inbound takes the storage and the import service, as createCore builds it. */
function pendingInbound(cli: Cli): PendingInboundService {
  const storage = createStorage(cli.config);
  return new PendingInboundService({ imports: new LibraryImportService(storage), storage });
}

/**
 * Pending inbound (docs/library.md "Pending inbound"): `asset import --pending` holds imports;
 * these list, confirm and discard them. Confirm and discard act as the member `--user` of the
 * team, or as the system without one.
 */
export const handlers: Handlers<'asset-pending'> = {
  'asset pending list': (cli, flags) =>
    pendingInbound(cli).listAsOperator(
      cli.operatorCtx(),
      given({ team: numberFlag(flags.team), page: numberFlag(flags.page), pageSize: numberFlag(flags['page-size']) }),
    ),
  'asset pending confirm': (cli, flags) => pendingInbound(cli).confirmAsOperator(cli.operatorCtx(), idsInput(flags)),
  'asset pending discard': (cli, flags) => pendingInbound(cli).discardAsOperator(cli.operatorCtx(), idsInput(flags)),
};
