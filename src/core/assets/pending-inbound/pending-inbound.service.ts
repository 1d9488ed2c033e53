import { Type } from 'typebox';
import { operatorInTeam, operatorTeamScope } from '../../access/operator-scopes.ts';
import { requirePermission } from '../../access/roles.ts';
import type { Ctx, UnitOfWork } from '../../platform/ctx.ts';
import { DomainError } from '../../platform/errors.ts';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';
import { normalizePage, type Page, paginationOf } from '../../platform/pagination.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { extensionOf } from '../files/file-rules.ts';
import { libraryEvents } from '../files/library-events.ts';
import { parseFolderPath } from '../folders/folders.ts';
import { type ImportProgress, type LibraryImportService, objectKey, type PlacementPlan } from '../imports/library-import.service.ts';
import { pinAllStoredBytes, releaseBytes } from '../recycle-bin/stored-bytes.ts';
import type { Storage } from '../storage/storage.ts';
import type { PendingInboundView } from './pending-inbound.schemas.ts';
import {
  countPendingInbounds,
  deletePendingInbounds,
  discardPendingInbounds,
  insertPendingInbound,
  lockPendingInbounds,
  type PendingRow,
  pendingInboundPage,
} from './pending-inbounds.queries.ts';

/** How many pending inbounds one confirm or discard takes: all of them are placed in one transaction. */
export const PENDING_LIMITS = { idsPerCall: 100 } as const;

const id = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID, description });
const ids = Type.Array(id('A pending inbound id.'), {
  minItems: 1,
  maxItems: PENDING_LIMITS.idsPerCall,
  description: `Pending inbound ids of the team, 1-${PENDING_LIMITS.idsPerCall}; a repeated id counts once.`,
});

/** Input of confirm and discard (GraphQL). */
export const PendingInboundIdsInput = Type.Object({ ids }, { $id: 'PendingInboundIdsInput', additionalProperties: false });

/** Input of `asset pending confirm|discard` (keys are the CLI flag names so details name the flag). */
export const OperatorPendingInboundIdsInput = Type.Object(
  { team: id('The team whose pending inbounds these are.'), ids, user: Type.Optional(id('A member of the team the operator acts as.')) },
  { $id: 'OperatorPendingInboundIdsInput', additionalProperties: false },
);

/** Input of `asset pending list`. */
export const OperatorPendingInboundListInput = Type.Object(
  {
    team: id('The team whose pending inbounds are listed.'),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID })),
    pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID })),
  },
  { $id: 'OperatorPendingInboundListInput', additionalProperties: false },
);

const checkIds = compileInput(PendingInboundIdsInput);
const checkOperatorIds = compileInput(OperatorPendingInboundIdsInput);
const checkOperatorList = compileInput(OperatorPendingInboundListInput);

/** What a pending import prints: the ids of the pending inbounds it created (and, for `--dir`, what failed). */
export interface HeldInbound {
  pendingIds: number[];
  failed?: Array<{ path: string; error: string }>;
}

/** One confirmed pending inbound: the library file it became. */
export interface ConfirmedInbound {
  pendingInboundId: number;
  /** The new file's file-path ID. */
  materialId: number;
  /** Folder ids from the root down to its folder; [] at the root. */
  folderIds: number[];
}

/** The import plan a pending row holds, as `LibraryImportService.place` takes it. */
function planOf(teamId: number, row: PendingRow): PlacementPlan {
  return {
    teamId,
    segments: parseFolderPath(row.folderPath),
    name: row.name,
    tags: row.tags,
    description: row.description,
    score: row.score,
    link: row.link,
    userId: row.userId,
    facts: {
      sha256: row.sha256,
      byteSize: row.byteSize,
      mimeType: row.mimeType,
      extension: row.extension,
      width: row.width,
      height: row.height,
      durationMs: row.durationMs,
    },
    palette: row.palette,
    sourcePath: null,
    restore: null,
  };
}

/** 404 naming the ids that are not pending inbounds of the team (unknown, another team's, already confirmed or discarded). */
function requireAll(wanted: number[], found: number[]): void {
  const have = new Set(found);
  const missing = wanted.filter((i) => !have.has(i)).sort((a, b) => a - b);
  if (missing.length > 0) throw new DomainError('not_found', `Pending inbound not found: ${missing.join(', ')}`, undefined, { subject: 'pending_inbound' });
}

/**
 * Pending inbound (docs/library.md "Pending inbound"). An import given
 * `--pending` is validated, probed and its bytes stored exactly as `asset import` does, but it
 * becomes a row of `library_pending_inbounds`, not a library file. Confirming places the files in
 * one transaction and writes one MATERIAL_INBOUND_COMPLETED (source PENDING_INBOUND_CONFIRM);
 * discarding removes the rows and writes no event. Both are all-or-nothing and need library:edit.
 */
export class PendingInboundService {
  private readonly deps: { imports: LibraryImportService; storage: Storage };

  constructor(deps: { imports: LibraryImportService; storage: Storage }) {
    this.deps = deps;
  }

  /** `asset import --file F --pending`: the import's rules and probing, then a pending row instead of a placement. */
  async holdFile(op: UnitOfWork, input: unknown): Promise<HeldInbound> {
    return this.holdPlan(op, await this.deps.imports.prepareFile(op, input));
  }

  /** Holds a prepared import (its bytes stored) as a pending inbound: a file's, or an upload's (`pending`). */
  async holdPlan(op: UnitOfWork, plan: PlacementPlan): Promise<HeldInbound> {
    const { facts } = plan;
    // the row is written under the bytes' lock, so a permanent delete cannot take them in between
    const pendingId = await inTransaction(op, async (tx) => {
      await this.deps.imports.pinBytes(tx, plan);
      return insertPendingInbound(tx, {
        teamId: plan.teamId,
        folderPath: `/${plan.segments.join('/')}`,
        name: plan.name,
        extension: extensionOf(plan.name, facts.extension),
        tags: plan.tags,
        description: plan.description,
        score: plan.score,
        link: plan.link,
        userId: plan.userId,
        sha256: facts.sha256,
        storageKey: objectKey(facts.sha256),
        mimeType: facts.mimeType,
        byteSize: facts.byteSize,
        width: facts.width,
        height: facts.height,
        durationMs: facts.durationMs,
        palette: plan.palette,
      });
    });
    return { pendingIds: [pendingId] };
  }

  /** `asset import --dir D --pending`: every regular file held as its own pending inbound; folders are created only at confirm. */
  async holdDirectory(op: UnitOfWork, input: unknown, onProgress: ImportProgress = () => {}): Promise<HeldInbound> {
    const { done, failed } = await this.deps.imports.eachFileOfDirectory(op, input, onProgress, { mirrorFolders: false }, (file) => this.holdFile(op, file));
    return { pendingIds: done.flatMap((held) => held.pendingIds), failed };
  }

  /** The team's pending inbounds, newest first (GraphQL `pendingInbounds`); needs library:edit, as confirming does. */
  async list(ctx: Ctx, page: { page?: number | null; pageSize?: number | null }): Promise<Page<PendingInboundView>> {
    requirePermission(ctx, 'library:edit');
    return this.page(ctx, ctx.teamId, page);
  }

  /** `asset pending list --team T`. */
  async listAsOperator(op: UnitOfWork, input: unknown): Promise<Page<PendingInboundView>> {
    const { team, ...page } = checkOperatorList(input);
    const scope = await operatorTeamScope(op, team);
    return this.page(scope, scope.teamId, page);
  }

  /**
   * Places the pending inbounds as library files in one transaction (folders found or created as
   * the import does), removes them, and writes MATERIAL_INBOUND_COMPLETED with
   * `pendingInboundIdToMaterialId`, MATERIAL_ADDED_TO_FOLDER and folder ADD. Any id that is not a
   * pending inbound of the team: 404, nothing changed, no event.
   */
  async confirm(ctx: Ctx, input: unknown): Promise<{ confirmed: ConfirmedInbound[] }> {
    requirePermission(ctx, 'library:edit');
    const wanted = [...new Set(checkIds(input).ids)];
    return inTransaction(ctx, async (tx) => {
      const rows = await lockPendingInbounds(tx, tx.teamId, wanted);
      requireAll(
        wanted,
        rows.map((r) => r.id),
      );
      // every key's lock first, in key order, so two confirms of the same contents never deadlock
      await pinAllStoredBytes(
        tx,
        this.deps.storage,
        rows.map((r) => objectKey(r.sha256)),
      );
      const confirmed: ConfirmedInbound[] = [];
      for (const row of rows) {
        const placed = await this.deps.imports.place(tx, planOf(tx.teamId, row));
        confirmed.push({ pendingInboundId: row.id, materialId: placed.id, folderIds: placed.folderIds });
      }
      await deletePendingInbounds(tx, tx.teamId, wanted);
      await libraryEvents.pendingConfirmed(
        tx,
        confirmed.map((c) => ({ pendingInboundId: c.pendingInboundId, fileId: c.materialId })),
      );
      return { confirmed };
    });
  }

  /** Removes pending inbounds; no event (nothing reached the library). Any id that is not the team's: 404, nothing removed. */
  async discard(ctx: Ctx, input: unknown): Promise<{ discarded: number[] }> {
    requirePermission(ctx, 'library:edit');
    const wanted = [...new Set(checkIds(input).ids)];
    const removed = await inTransaction(ctx, async (tx) => {
      const rows = await discardPendingInbounds(tx, tx.teamId, wanted);
      // a missing id rolls the whole transaction back
      requireAll(
        wanted,
        rows.map((r) => r.id),
      );
      return rows;
    });
    // the held bytes go too, unless a file, another pending inbound or an approval uses them
    await releaseBytes(ctx, this.deps.storage, removed);
    return { discarded: removed.map((r) => r.id).sort((a, b) => a - b) };
  }

  /** `asset pending confirm --team T --ids 1,2 [--user U]`: as the member U (of team T), else as the system. */
  async confirmAsOperator(op: UnitOfWork, input: unknown): Promise<{ confirmed: ConfirmedInbound[] }> {
    return this.confirm(await this.operatorCtx(op, input, 'asset-pending-confirm'), { ids: (input as { ids: unknown }).ids });
  }

  /** `asset pending discard --team T --ids 1,2 [--user U]`. */
  async discardAsOperator(op: UnitOfWork, input: unknown): Promise<{ discarded: number[] }> {
    return this.discard(await this.operatorCtx(op, input, 'asset-pending-discard'), { ids: (input as { ids: unknown }).ids });
  }

  /** The operator's context for the team it names: the member `user` (422 when not of the team), else the system. */
  private async operatorCtx(op: UnitOfWork, input: unknown, job: string): Promise<Ctx> {
    const { team, user } = checkOperatorIds(input);
    return operatorInTeam(op, team, user, job);
  }

  private async page(op: UnitOfWork, teamId: number, input: { page?: number | null; pageSize?: number | null }): Promise<Page<PendingInboundView>> {
    const page = normalizePage(input);
    const [count, items] = await Promise.all([
      countPendingInbounds(op, teamId),
      pendingInboundPage(op, teamId, page.pageSize, (page.page - 1) * page.pageSize),
    ]);
    return { items, pagination: paginationOf(page, count) };
  }
}
