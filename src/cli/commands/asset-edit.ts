import { FileValidityService } from '../../core/assets/files/file-validity.service.ts';
import type { LibraryEditService } from '../../core/assets/files/library-edit.service.ts';
import type { AssetItem } from '../../core/assets/search/search.schemas.ts';
import type { Ctx } from '../../core/platform/ctx.ts';
import { asMember, type Cli, type Flags, idFlag, numberFlag } from '../command.ts';
import type { Handlers } from '../registry.ts';

/** `--start` / `--end` of `asset validity`: a time, or `none` (or omitted) for no bound. */
function boundFlag(value: string | boolean | undefined): string | null | boolean {
  return value === undefined || value === 'none' ? null : value;
}

/** `--folder` of `asset move`: a folder id, or `root`; anything else is passed on for the core to refuse, naming folderId. */
function folderFlag(value: string | boolean | undefined): unknown {
  return value === 'root' ? null : numberFlag(value);
}

/** `--tags a,b` as the list that replaces the file's tags; an empty value clears them (an empty tag among others is the core's to refuse). */
function tagsFlag(value: string | boolean | undefined): unknown {
  if (typeof value !== 'string') return value;
  return value === '' ? [] : value.split(',');
}

/** An empty text flag clears the field (null), as in GraphQL's updateLibraryFile. */
const clearable = (value: string | boolean | undefined) => (value === '' ? null : value);

/** The file as GraphQL answers an edit: the edit's AssetItem (read back through search, with its tags). The library edit service comes with the core. */
async function edited(cli: Cli, flags: Flags, edit: (service: LibraryEditService, ctx: Ctx, fileId: number) => Promise<AssetItem>): Promise<object> {
  const ctx = await asMember(cli, flags);
  const { assets } = await cli.core();
  return edit(assets.libraryEdit, ctx, idFlag(flags.file));
}

/** File edits from the operator CLI, acting as the member `--user` (docs/library.md, docs/search.md). */
export const handlers: Handlers<'asset-edit'> = {
  'asset rename': (cli, flags) => edited(cli, flags, (service, ctx, file) => service.updateFile(ctx, file, { name: flags.name })),
  'asset tags': (cli, flags) => edited(cli, flags, (service, ctx, file) => service.updateFile(ctx, file, { tags: tagsFlag(flags.tags) })),
  'asset describe': (cli, flags) => edited(cli, flags, (service, ctx, file) => service.updateFile(ctx, file, { description: clearable(flags.description) })),
  'asset move': (cli, flags) => edited(cli, flags, (service, ctx, file) => service.moveFile(ctx, file, { folderId: folderFlag(flags.folder) })),
  'asset transfer': async (cli, flags) => {
    const ctx = await asMember(cli, flags);
    return { id: (await (await cli.core()).assets.libraryEdit.transferOwnership(ctx, idFlag(flags.file), { ownerUserId: numberFlag(flags.owner) })).id };
  },
  'asset validity': async (cli, flags) =>
    new FileValidityService().set(await asMember(cli, flags), idFlag(flags.file), { startTime: boundFlag(flags.start), endTime: boundFlag(flags.end) }),
};
