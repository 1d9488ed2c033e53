import { isMemberOfTeam } from '../../access/members.queries.ts';
import { operatorTeamScope } from '../../access/operator-scopes.ts';
import { requirePermission } from '../../access/roles.ts';
import { type CallerScope, type Ctx, memberIdOf, type UnitOfWork } from '../../platform/ctx.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { isLiveFolder } from '../folders/folders.queries.ts';
import type { AssetItem } from '../search/search.schemas.ts';
import { lockLiveFile } from './edited-file.ts';
import { normalizeLink, normalizeTags } from './file-rules.ts';
import { type FileAssignment, type FileFacts, fileFacts, moveFileToFolder, updateFileColumns } from './files.queries.ts';
import { ANALYSIS_LIMITS, type AnalysisInput, LibraryFilePatch, MoveFileInput, OperatorAnalysisInput, TransferOwnershipInput } from './library-edit.schemas.ts';
import { libraryEvents } from './library-events.ts';
import { ensureTags, tagFile, untagFileExcept } from './tags.queries.ts';

const checkPatch = compileInput(LibraryFilePatch);
const checkMove = compileInput(MoveFileInput);
const checkTransfer = compileInput(TransferOwnershipInput);
const checkOperatorAnalysis = compileInput(OperatorAnalysisInput);

/** The analysis columns a change sets; the detailed description must be a JSON array of at most 64 KiB. */
function analysisAssignments(analysis: AnalysisInput, field: string): FileAssignment[] {
  const sets: FileAssignment[] = [];
  if (analysis.aiTags !== undefined) sets.push({ column: 'ai_tags', value: analysis.aiTags });
  if (analysis.aiTitle !== undefined) sets.push({ column: 'ai_title', value: analysis.aiTitle });
  if (analysis.aiDescription !== undefined) sets.push({ column: 'ai_description', value: analysis.aiDescription });
  if (analysis.aiDetailedDescription !== undefined) {
    const json = analysis.aiDetailedDescription === null ? null : JSON.stringify(analysis.aiDetailedDescription);
    if (json !== null && Buffer.byteLength(json) > ANALYSIS_LIMITS.detailedBytes)
      throw invalid(`${field}aiDetailedDescription`, 'may be at most 64 KiB of JSON');
    sets.push({ column: 'ai_detailed_description', value: json });
  }
  return sets;
}

/** Locks a live file of the caller's team and reads it as the events describe it, before the change. */
async function lockFileForEdit(tx: Ctx, fileId: number): Promise<FileFacts> {
  await lockLiveFile(tx, tx.teamId, fileId);
  return (await fileFacts(tx, fileId))!;
}

/** `update_user_id` records the member behind an edit (AssetItem updateUser); an edit by a key or the system clears it. */
function editedBy(ctx: CallerScope | null): FileAssignment {
  return { column: 'update_user_id', value: ctx ? memberIdOf(ctx.actor) : null };
}

/** Replaces a file's tags: team tags are found or created by name (as at import); the tag_names trigger follows. */
async function replaceTags(tx: UnitOfWork, teamId: number, fileId: number, names: string[]): Promise<void> {
  const json = JSON.stringify(names);
  await untagFileExcept(tx, teamId, fileId, json);
  if (names.length === 0) return;
  await ensureTags(tx, teamId, json);
  await tagFile(tx, teamId, fileId, json);
}

/** The file as the edit's transaction leaves it, as search shows it (AssetSearchService.findItems). */
export type ReadCommittedItem = (tx: Ctx, fileId: number) => Promise<AssetItem>;

/**
 * Library file edits for frontends (GraphQL) and operators (docs/search.md). Editing needs the
 * editable role or higher (`library:edit`), as creating and editing products does (spec 5).
 */
export class LibraryEditService {
  private readonly deps: { readItem: ReadCommittedItem };

  constructor(deps: { readItem: ReadCommittedItem }) {
    this.deps = deps;
  }

  /** Sets a file's name, description, tags, score, link and analysis fields; omitted fields stay, null clears. */
  async updateFile(ctx: Ctx, fileId: number, input: unknown): Promise<AssetItem> {
    requirePermission(ctx, 'library:edit');
    const patch = checkPatch(input);
    const sets: FileAssignment[] = [];
    if (patch.name !== undefined) sets.push({ column: 'name', value: patch.name });
    if (patch.description !== undefined) sets.push({ column: 'description', value: patch.description });
    if (patch.score !== undefined) sets.push({ column: 'score', value: patch.score });
    if (patch.link !== undefined) sets.push({ column: 'link', value: patch.link === null ? null : normalizeLink(patch.link) });
    if (patch.analysis) sets.push(...analysisAssignments(patch.analysis, 'analysis.'));
    const tags = patch.tags === undefined ? undefined : normalizeTags(patch.tags);
    return inTransaction(ctx, async (tx) => {
      const before = await lockFileForEdit(tx, fileId);
      if (tags !== undefined) await replaceTags(tx, tx.teamId, fileId, tags);
      await updateFileColumns(tx, tx.teamId, fileId, [...sets, editedBy(tx)]);
      await libraryEvents.edited(tx, before, fileId);
      return this.deps.readItem(tx, fileId);
    });
  }

  /** Moves a file to a live folder of the team, or to the root with null (404 for another team's folder). */
  async moveFile(ctx: Ctx, fileId: number, input: unknown): Promise<AssetItem> {
    requirePermission(ctx, 'library:edit');
    const { folderId } = checkMove(input);
    return inTransaction(ctx, async (tx) => {
      if (folderId !== null) {
        if (!(await isLiveFolder(tx, folderId))) throw notFound('Folder');
      }
      const before = await lockFileForEdit(tx, fileId);
      await moveFileToFolder(tx, fileId, folderId, memberIdOf(tx.actor));
      await libraryEvents.moved(tx, before, fileId);
      return this.deps.readItem(tx, fileId);
    });
  }

  /**
   * Transfers a file to another member of the team: the file keeps its file-path
   * ID. 422 naming ownerUserId when the member is not the team's; transferring to the current
   * owner changes nothing and writes no event.
   */
  async transferOwnership(ctx: Ctx, fileId: number, input: unknown): Promise<AssetItem> {
    requirePermission(ctx, 'library:edit');
    const { ownerUserId } = checkTransfer(input);
    return inTransaction(ctx, async (tx) => {
      if (!(await isMemberOfTeam(tx, tx.teamId, ownerUserId))) throw invalid('ownerUserId', 'must be a member of the team');
      const before = await lockFileForEdit(tx, fileId);
      if (before.ownerId !== ownerUserId) {
        await updateFileColumns(tx, tx.teamId, fileId, [{ column: 'owner_id', value: ownerUserId }, editedBy(tx)]);
        await libraryEvents.ownerChanged(tx, fileId);
      }
      return this.deps.readItem(tx, fileId);
    });
  }

  /** `asset analysis set` (operator CLI): sets the image analysis fields of a file of the named team. */
  async setAnalysisAsOperator(op: UnitOfWork, input: unknown): Promise<{ id: number }> {
    const body = checkOperatorAnalysis(input);
    const { team, fileId, ...analysis } = body;
    const sets = analysisAssignments(analysis, '');
    if (sets.length === 0) throw invalid('aiTags', 'give at least one analysis field');
    const scope = await operatorTeamScope(op, team);
    return inTransaction(scope, async (tx) => {
      await lockLiveFile(tx, tx.teamId, fileId);
      await updateFileColumns(tx, tx.teamId, fileId, sets);
      return { id: fileId };
    });
  }
}
