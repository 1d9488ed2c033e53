import { requirePermission } from '../../access/roles.ts';
import { memberIdOf, type Ctx, type UnitOfWork, type CallerScope } from '../../platform/ctx.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { queryOne, queryRows } from '../../platform/sql.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { normalizeLink, normalizeTags } from './file-rules.ts';
import { lockLiveFile } from './edited-file.ts';
import { libraryEvents } from '../../events/library-events.ts';
import { fileFacts, type FileFacts } from './files.queries.ts';
import { operatorTeamScope } from '../../access/operator-scopes.ts';
import { ANALYSIS_LIMITS, LibraryFilePatch, MoveFileInput, OperatorAnalysisInput, TransferOwnershipInput, type AnalysisInput } from './library-edit.schemas.ts';
import type { AssetItem } from '../search/search.schemas.ts';

const checkPatch = compileInput(LibraryFilePatch);
const checkMove = compileInput(MoveFileInput);
const checkTransfer = compileInput(TransferOwnershipInput);
const checkOperatorAnalysis = compileInput(OperatorAnalysisInput);

/** A column assignment of an UPDATE, with its value. */
interface Assignment {
  column: string;
  value: unknown;
}

/** The analysis columns a change sets; the detailed description must be a JSON array of at most 64 KiB. */
function analysisAssignments(analysis: AnalysisInput, field: string): Assignment[] {
  const sets: Assignment[] = [];
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
function editedBy(ctx: CallerScope | null): Assignment {
  return { column: 'update_user_id', value: ctx ? memberIdOf(ctx.actor) : null };
}

async function applyAssignments(tx: UnitOfWork, teamId: number, fileId: number, sets: Assignment[]): Promise<void> {
  const columns = sets.map((s) => (s.column === 'ai_detailed_description' ? `${s.column} = ?::jsonb` : `${s.column} = ?`));
  await queryRows(tx, `update library_files set ${[...columns, 'updated_at = now()'].join(', ')} where id = ? and team_id = ?`, [
    ...sets.map((s) => s.value),
    fileId,
    teamId,
  ]);
}

/** Replaces a file's tags: team tags are found or created by name (as at import); the tag_names trigger follows. */
async function replaceTags(tx: UnitOfWork, teamId: number, fileId: number, names: string[]): Promise<void> {
  const json = JSON.stringify(names);
  await queryRows(
    tx,
    'delete from library_file_tags where file_id = ? and team_id = ? and tag_id not in (select id from library_tags where team_id = ? and name in (select value from json_array_elements_text(?::json)))',
    [fileId, teamId, teamId, json],
  );
  if (names.length === 0) return;
  await queryRows(
    tx,
    'insert into library_tags (team_id, name) select ?, value from json_array_elements_text(?::json) on conflict (team_id, name) do nothing',
    [teamId, json],
  );
  await queryRows(
    tx,
    `insert into library_file_tags (file_id, tag_id, team_id)
     select ?, t.id, t.team_id from library_tags t where t.team_id = ? and t.name in (select value from json_array_elements_text(?::json))
     on conflict (file_id, tag_id) do nothing`,
    [fileId, teamId, json],
  );
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
    const sets: Assignment[] = [];
    if (patch.name !== undefined) sets.push({ column: 'name', value: patch.name });
    if (patch.description !== undefined) sets.push({ column: 'description', value: patch.description });
    if (patch.score !== undefined) sets.push({ column: 'score', value: patch.score });
    if (patch.link !== undefined) sets.push({ column: 'link', value: patch.link === null ? null : normalizeLink(patch.link) });
    if (patch.analysis) sets.push(...analysisAssignments(patch.analysis, 'analysis.'));
    const tags = patch.tags === undefined ? undefined : normalizeTags(patch.tags);
    return inTransaction(ctx, async (tx) => {
      const before = await lockFileForEdit(tx, fileId);
      if (tags !== undefined) await replaceTags(tx, tx.teamId, fileId, tags);
      await applyAssignments(tx, tx.teamId, fileId, [...sets, editedBy(tx)]);
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
        const folder = await queryOne(tx, 'select id from library_folders where id = ? and team_id = ? and deleted_at is null', [folderId, tx.teamId]);
        if (!folder) throw notFound('Folder');
      }
      const before = await lockFileForEdit(tx, fileId);
      await queryRows(tx, 'update library_files set folder_id = ?, update_user_id = ?, updated_at = now() where id = ? and team_id = ?', [
        folderId,
        memberIdOf(tx.actor),
        fileId,
        tx.teamId,
      ]);
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
      const member = await queryOne(tx, 'select id from members where id = ? and team_id = ?', [ownerUserId, tx.teamId]);
      if (!member) throw invalid('ownerUserId', 'must be a member of the team');
      const before = await lockFileForEdit(tx, fileId);
      if (before.ownerId !== ownerUserId) {
        await applyAssignments(tx, tx.teamId, fileId, [{ column: 'owner_id', value: ownerUserId }, editedBy(tx)]);
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
      await applyAssignments(tx, tx.teamId, fileId, sets);
      return { id: fileId };
    });
  }
}
