import { requirePermission } from '../../access/roles.ts';
import { libraryEvents, type VersionChange } from '../../events/library-events.ts';
import { filesFacts, type FileFacts } from '../files/files.queries.ts';
import { memberIdOf, type Ctx, type UnitOfWork, type TeamScope } from '../../platform/ctx.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { isResourceId } from '../../platform/ids.ts';
import { queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import type { RecycleBinService } from '../recycle-bin/recycle-bin.service.ts';
import { importActor, type LibraryImportService } from '../imports/import.ts';
import type { ImportedFile } from '../files/library.schemas.ts';
import { AddVersionInput, RemoveVersionInput, type VersionLineView, type VersionView } from './version-lines.schemas.ts';

const checkAdd = compileInput(AddVersionInput);
const checkRemove = compileInput(RemoveVersionInput);

/** A file as a version line sees it. */
interface MemberRow {
  id: number;
  folderId: number | null;
  lineId: number | null;
  version: number | null;
  live: boolean;
}

const MEMBER_COLUMNS = 'id, folder_id as "folderId", version_line_id as "lineId", version_number as "version", deleted_at is null as live';

/**
 * Locks a file of the team that is live or a hidden version (not in the recycle bin); 404 when it
 * is neither, or another team's.
 */
async function lockMember(tx: Ctx, fileId: number): Promise<MemberRow> {
  if (!isResourceId(fileId)) throw notFound('File');
  const row = await queryOne<MemberRow>(
    tx,
    `select ${MEMBER_COLUMNS} from library_files
      where id = ? and team_id = ? and recycle_entry_id is null and (deleted_at is null or version_line_id is not null) for update`,
    [fileId, tx.teamId],
  );
  if (!row) throw notFound('File');
  return row;
}

/** Locks a line and its files (line first, then files by id, as every version operation does). */
async function lockLine(tx: Ctx, lineId: number): Promise<{ coverId: number; members: MemberRow[] }> {
  const line = await queryOne<{ coverId: number }>(tx, 'select cover_file_id as "coverId" from library_version_lines where id = ? and team_id = ? for update', [
    lineId,
    tx.teamId,
  ]);
  const members = await queryRows<MemberRow>(
    tx,
    `select ${MEMBER_COLUMNS} from library_files where team_id = ? and version_line_id = ? order by id for update`,
    [tx.teamId, lineId],
  );
  return { coverId: line!.coverId, members: members.sort((a, b) => a.version! - b.version!) };
}

async function setFile(tx: Ctx, fileId: number, sets: string, params: unknown[]): Promise<void> {
  await queryRows(tx, `update library_files set ${sets}, update_user_id = ?, updated_at = now() where id = ? and team_id = ?`, [
    ...params,
    memberIdOf(tx.actor),
    fileId,
    tx.teamId,
  ]);
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
      const target = await lockMember(tx, fileId);
      if (!target.live) throw notFound('File');
      const added = await queryOne<MemberRow>(
        tx,
        `select ${MEMBER_COLUMNS} from library_files
          where id = ? and team_id = ? and recycle_entry_id is null and (deleted_at is null or version_line_id is not null) for update`,
        [body.versionFileId, tx.teamId],
      );
      if (!added) throw invalid('versionFileId', 'must be a live file of the team');
      if (added.lineId !== null) throw invalid('versionFileId', 'is already a version in a line; remove it from that line first');
      const shownBefore = await filesFacts(tx, [target.id, added.id]);
      const lineId = target.lineId ?? (await this.newLine(tx, target.id));
      const { members } = await lockLine(tx, lineId);
      const version = Math.max(...members.map((m) => m.version!)) + 1;
      const makeCover = body.makeCover === true;
      await setFile(tx, added.id, `version_line_id = ?, version_number = ?, folder_id = ?, deleted_at = ${makeCover ? 'null' : 'now()'}`, [
        lineId,
        version,
        target.folderId,
      ]);
      if (makeCover) {
        await setFile(tx, target.id, 'deleted_at = now()', []);
        await queryRows(tx, 'update library_version_lines set cover_file_id = ? where id = ? and team_id = ?', [added.id, lineId, tx.teamId]);
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
      const member = await lockMember(tx, fileId);
      if (member.lineId === null) throw invalid('id', 'is not a version in a line');
      const { coverId, members } = await lockLine(tx, member.lineId);
      if (coverId === fileId) return this.view(tx, member.lineId);
      const cover = members.find((m) => m.id === coverId)!;
      const shownBefore = await filesFacts(tx, [coverId]);
      await setFile(tx, coverId, 'deleted_at = now()', []);
      await setFile(tx, fileId, 'deleted_at = null, folder_id = ?', [cover.folderId]);
      await queryRows(tx, 'update library_version_lines set cover_file_id = ? where id = ? and team_id = ?', [fileId, member.lineId, tx.teamId]);
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
      const member = await lockMember(tx, fileId);
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

      await setFile(tx, fileId, 'version_line_id = null, version_number = null, folder_id = ?, deleted_at = null', [cover.folderId]);
      if (newCover.id !== coverId) {
        await setFile(tx, newCover.id, 'deleted_at = null, folder_id = ?', [cover.folderId]);
        await queryRows(tx, 'update library_version_lines set cover_file_id = ? where id = ? and team_id = ?', [newCover.id, lineId, tx.teamId]);
      }
      if (dissolved) {
        await setFile(tx, newCover.id, 'version_line_id = null, version_number = null', []);
        await queryRows(tx, 'delete from library_version_lines where id = ? and team_id = ?', [lineId, tx.teamId]);
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
    const member = await queryOne<MemberRow>(
      ctx,
      `select ${MEMBER_COLUMNS} from library_files where id = ? and team_id = ? and recycle_entry_id is null and (deleted_at is null or version_line_id is not null)`,
      [fileId, ctx.teamId],
    );
    if (!member) throw notFound('File');
    if (member.lineId === null) return { lineId: null, coverMaterialId: fileId, versions: [] };
    return this.view(ctx, member.lineId);
  }

  private async newLine(tx: Ctx, fileId: number): Promise<number> {
    const line = await queryOne<{ id: number }>(tx, 'insert into library_version_lines (team_id, cover_file_id) values (?, ?) returning id', [
      tx.teamId,
      fileId,
    ]);
    await setFile(tx, fileId, 'version_line_id = ?, version_number = 1', [line!.id]);
    return line!.id;
  }

  private async changed(tx: Ctx, change: VersionChange, shownBefore: FileFacts[], shownAfterIds: number[]): Promise<void> {
    await libraryEvents.versionChanged(tx, change, shownBefore, [...new Set(shownAfterIds)]);
  }

  private async view(ctx: TeamScope, lineId: number): Promise<VersionLineView> {
    const versions = await queryRows<VersionView>(
      ctx,
      `select f.id as "materialId", f.version_number as version, f.id = l.cover_file_id as "isCover", f.name, f.extension,
              f.byte_size::float8 as "byteSize", ${isoSql('f.created_at')} as "createdAt"
         from library_files f join library_version_lines l on l.id = f.version_line_id and l.team_id = f.team_id
        where f.team_id = ? and f.version_line_id = ? order by f.version_number`,
      [ctx.teamId, lineId],
    );
    const cover = versions.find((v) => v.isCover)!;
    return { lineId, coverMaterialId: cover.materialId, versions };
  }
}
