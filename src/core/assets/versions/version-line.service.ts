import { requirePermission } from '../../access/roles.ts';
import { type Ctx, memberIdOf, type TeamScope, type UnitOfWork } from '../../platform/ctx.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { isResourceId } from '../../platform/ids.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { type FileFacts, filesFacts } from '../files/files.queries.ts';
import type { ImportedFile } from '../files/library.schemas.ts';
import { libraryEvents, type VersionChange } from '../files/library-events.ts';
import { importActor, type LibraryImportService } from '../imports/library-import.service.ts';
import type { RecycleBinService } from '../recycle-bin/recycle-bin.service.ts';
import {
  deleteLine,
  dissolveLineOf,
  findMember,
  hideVersion,
  insertLine,
  joinLine,
  leaveLine,
  lineVersions,
  lockLineCover,
  lockLineMembers,
  lockMember,
  type MemberRow,
  setLineCover,
  showVersion,
  startLine,
} from './version-lines.queries.ts';
import { AddVersionInput, RemoveVersionInput, type VersionLineView } from './version-lines.schemas.ts';

const checkAdd = compileInput(AddVersionInput);
const checkRemove = compileInput(RemoveVersionInput);

/**
 * Locks a file of the team that is live or a hidden version (not in the recycle bin); 404 when it
 * is neither, or another team's.
 */
async function lockMemberOrNotFound(tx: Ctx, fileId: number): Promise<MemberRow> {
  if (!isResourceId(fileId)) throw notFound('File');
  const row = await lockMember(tx, fileId);
  if (!row) throw notFound('File');
  return row;
}

/** Locks a line and its files (line first, then files by id, as every version operation does). */
async function lockLine(tx: Ctx, lineId: number): Promise<{ coverId: number; members: MemberRow[] }> {
  const coverId = await lockLineCover(tx, lineId);
  const members = await lockLineMembers(tx, lineId);
  return { coverId, members: members.sort((a, b) => a.version! - b.version!) };
}

/**
 * Version lines (docs/library.md "Version lines"). Every version is a library file
 * with its own file-path ID; a line has one cover, the only live version: search, shares, folders
 * and previews show it, and a product that references any version of the line shows the cover.
 * The other versions are hidden (not live) until they become the cover or leave the line. All
 * operations need `library:edit` and write MATERIAL_VERSION_CHANGED in their transaction.
 */
export class VersionLineService {
  private readonly deps: { recycleBin: RecycleBinService; imports: LibraryImportService };

  constructor(deps: { recycleBin: RecycleBinService; imports: LibraryImportService }) {
    this.deps = deps;
  }

  /**
   * `asset import --file P --version-of F [--cover]`: new bytes imported (checks, probing and
   * events exactly as `asset import`) and made the newest version of F's line, in one transaction:
   * a refused version leaves no file behind. With `makeCover` this is 6.2 REPLACE_COVER_ON_UPLOAD.
   */
  async importVersion(op: UnitOfWork, input: unknown, versionOf: number, makeCover: boolean): Promise<ImportedFile & { line: VersionLineView }> {
    const plan = await this.deps.imports.prepareFile(op, input);
    return inTransaction(op, async (tx) => {
      const placed = await this.deps.imports.place(tx, plan);
      const ctx: Ctx = { em: tx.em, teamId: plan.teamId, actor: importActor(plan), requestId: 'cli' };
      await libraryEvents.imported(ctx, placed.id);
      const line = await this.addVersion(ctx, versionOf, { versionFileId: placed.id, makeCover });
      return { ...placed, line };
    });
  }

  /**
   * Makes the live file `versionFileId` the newest version of `fileId`'s line (made now, with
   * `fileId` as version 1, when it has none). It joins the line's folder. Without `makeCover` it is
   * hidden (6.2 ADD); with it, it becomes the cover and the old cover is hidden
   * (REPLACE_COVER_ON_UPLOAD). `coverMaterialId` is the cover after the change, `newMaterialId`
   * the new version, `version` its number.
   */
  async addVersion(ctx: Ctx, fileId: number, input: unknown): Promise<VersionLineView> {
    requirePermission(ctx, 'library:edit');
    const body = checkAdd(input);
    if (body.versionFileId === fileId) throw invalid('versionFileId', "must be another file than the line's");
    return inTransaction(ctx, async (tx) => {
      const target = await lockMemberOrNotFound(tx, fileId);
      if (!target.live) throw notFound('File');
      const added = await lockMember(tx, body.versionFileId);
      if (!added) throw invalid('versionFileId', 'must be a live file of the team');
      if (added.lineId !== null) throw invalid('versionFileId', 'is already a version in a line; remove it from that line first');
      const shownBefore = await filesFacts(tx, [target.id, added.id]);
      const lineId = target.lineId ?? (await this.newLine(tx, target.id));
      const { members } = await lockLine(tx, lineId);
      const version = Math.max(...members.map((m) => m.version!)) + 1;
      const makeCover = body.makeCover === true;
      const memberId = memberIdOf(tx.actor);
      await joinLine(tx, added.id, memberId, { lineId, version, folderId: target.folderId, cover: makeCover });
      if (makeCover) {
        await hideVersion(tx, target.id, memberId);
        await setLineCover(tx, lineId, added.id);
      }
      const cover = makeCover ? added.id : target.id;
      await this.changed(tx, { coverMaterialId: cover, newMaterialId: added.id, action: makeCover ? 'REPLACE_COVER_ON_UPLOAD' : 'ADD', version }, shownBefore, [
        cover,
      ]);
      return this.view(tx, lineId);
    });
  }

  /** Makes a version of a line its cover (6.2 SET_COVER: `coverMaterialId` and `newMaterialId` are that version); the old cover is hidden. */
  async setCover(ctx: Ctx, fileId: number): Promise<VersionLineView> {
    requirePermission(ctx, 'library:edit');
    return inTransaction(ctx, async (tx) => {
      const member = await lockMemberOrNotFound(tx, fileId);
      if (member.lineId === null) throw invalid('id', 'is not a version in a line');
      const { coverId, members } = await lockLine(tx, member.lineId);
      if (coverId === fileId) return this.view(tx, member.lineId);
      const cover = members.find((m) => m.id === coverId)!;
      const shownBefore = await filesFacts(tx, [coverId]);
      const memberId = memberIdOf(tx.actor);
      await hideVersion(tx, coverId, memberId);
      await showVersion(tx, fileId, memberId, cover.folderId);
      await setLineCover(tx, member.lineId, fileId);
      await this.changed(tx, { coverMaterialId: fileId, newMaterialId: fileId, action: 'SET_COVER', version: member.version! }, shownBefore, [fileId]);
      return this.view(tx, member.lineId);
    });
  }

  /**
   * Takes a version out of its line (6.2 REMOVE): `removeType` ADD leaves it a live file of its own
   * in the line's folder, DELETE sends it to the recycle bin (also a MATERIAL_DELETED RECYCLE). A
   * removed cover is replaced by the newest remaining version; a line left with one version is
   * dissolved (`versionGroupDissolved`) and that version is a plain file again. `coverMaterialId`
   * is the removed version, `newMaterialId` the newest remaining one.
   */
  async removeVersion(ctx: Ctx, fileId: number, input: unknown): Promise<{ removed: number; recycleEntryId: number | null; line: VersionLineView | null }> {
    requirePermission(ctx, 'library:edit');
    const { removeType } = checkRemove(input);
    return inTransaction(ctx, async (tx) => {
      const member = await lockMemberOrNotFound(tx, fileId);
      if (member.lineId === null) throw invalid('id', 'is not a version in a line');
      const lineId = member.lineId;
      const { coverId, members } = await lockLine(tx, lineId);
      const cover = members.find((m) => m.id === coverId)!;
      const remaining = members.filter((m) => m.id !== fileId);
      const newest = remaining[remaining.length - 1]!;
      const newCover = fileId === coverId ? newest : cover;
      const dissolved = remaining.length === 1;
      const [removedBefore] = await filesFacts(tx, [fileId]);
      const shownBefore = await filesFacts(tx, [coverId]);

      const memberId = memberIdOf(tx.actor);
      await leaveLine(tx, fileId, memberId, cover.folderId);
      if (newCover.id !== coverId) {
        await showVersion(tx, newCover.id, memberId, cover.folderId);
        await setLineCover(tx, lineId, newCover.id);
      }
      if (dissolved) {
        await dissolveLineOf(tx, newCover.id, memberId);
        await deleteLine(tx, lineId);
      }
      const recycleEntryId = removeType === 'DELETE' ? await this.deps.recycleBin.takeFileInTransaction(tx, fileId) : null;
      await this.changed(
        tx,
        { coverMaterialId: fileId, newMaterialId: newest.id, action: 'REMOVE', version: member.version!, removeType, versionGroupDissolved: dissolved },
        shownBefore,
        removeType === 'ADD' ? [newCover.id, fileId] : [newCover.id],
      );
      if (removeType === 'DELETE') await libraryEvents.deleted(tx, [removedBefore!], 'RECYCLE', [], []);
      return { removed: fileId, recycleEntryId, line: dissolved ? null : await this.view(tx, lineId) };
    });
  }

  /** The line of a file (live, or a hidden version): its cover and versions, oldest first; a file in no line has `lineId` null and no versions. */
  async line(ctx: Ctx, fileId: number): Promise<VersionLineView> {
    if (!isResourceId(fileId)) throw notFound('File');
    const member = await findMember(ctx, fileId);
    if (!member) throw notFound('File');
    if (member.lineId === null) return { lineId: null, coverMaterialId: fileId, versions: [] };
    return this.view(ctx, member.lineId);
  }

  private async newLine(tx: Ctx, fileId: number): Promise<number> {
    const lineId = await insertLine(tx, fileId);
    await startLine(tx, fileId, memberIdOf(tx.actor), lineId);
    return lineId;
  }

  private async changed(tx: Ctx, change: VersionChange, shownBefore: FileFacts[], shownAfterIds: number[]): Promise<void> {
    await libraryEvents.versionChanged(tx, change, shownBefore, [...new Set(shownAfterIds)]);
  }

  private async view(ctx: TeamScope, lineId: number): Promise<VersionLineView> {
    const versions = await lineVersions(ctx, lineId);
    const cover = versions.find((v) => v.isCover)!;
    return { lineId, coverMaterialId: cover.materialId, versions };
  }
}
