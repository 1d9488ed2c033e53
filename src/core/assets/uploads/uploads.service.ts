import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { requirePermission } from '../../access/roles.ts';
import { libraryEvents } from '../files/library-events.ts';
import { type Ctx, memberIdOf, type UnitOfWork } from '../../platform/ctx.ts';
import { DomainError, invalid, notFound } from '../../platform/errors.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { normalizeLink, normalizeTags } from '../files/file-rules.ts';
import { parseFolderPath } from '../folders/folders.ts';
import type { LibraryImportService } from '../imports/import.ts';
import type { PendingInboundService } from '../pending-inbound/pending-inbound.ts';
import type { Storage } from '../storage/storage.ts';
import { findMember } from '../versions/version-lines.queries.ts';
import type { VersionLineService } from '../versions/version-lines.service.ts';
import { assembleParts, partKey, partsPrefix, receivePart } from './upload-parts.ts';
import { UploadPlacementInput, type UploadChunk, type UploadLimits, type UploadResult, type UploadView } from './uploads.schemas.ts';
import {
  completeUpload,
  claimUpload,
  deleteUnleasedUpload,
  deleteUploads,
  findUpload,
  insertUpload,
  lockExpiredUploads,
  lockLeasedUpload,
  lockTeamQuota,
  recordPart,
  releaseLease,
  renewLease,
  teamBytesInUse,
  type UploadRow,
} from './uploads.queries.ts';

const checkPlacement = compileInput(UploadPlacementInput);

/** A refusal the tus adapter answers with its own status (reason: 409, 423, 410, 460); others see its code. */
function refusal(code: 'validation_failed' | 'not_found', message: string, reason: string): DomainError {
  return new DomainError(code, message, undefined, { reason, subject: 'upload' });
}

function expiredRefusal(): DomainError {
  return refusal('not_found', 'The upload expired; start it again', 'upload_expired');
}

/**
 * How long a PATCH holds an upload without news: renewed every third of it while bytes arrive; a
 * process that died mid-chunk holds its upload this long at most (tus clients retry 423).
 */
export const LEASE_SECONDS = 15;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function viewOf(row: UploadRow): UploadView {
  return {
    id: row.id,
    length: row.byteLength,
    offset: row.byteOffset,
    status: row.status,
    expiresAt: new Date(row.expiresAt).toISOString(),
    metadataHeader: row.metadataHeader,
    result: row.result as UploadResult | null,
  };
}

/**
 * Uploads over HTTP (docs/library.md "Uploads"): the tus 1.0 protocol's operations, the one-request
 * upload and GraphQL's, on one model. An upload is a row of `library_uploads`, seen by every API
 * process; each PATCH holds the row's lease while its bytes arrive and stores them as one part
 * object through `Storage` (never a path: any backend). The last byte assembles the parts and
 * places the file exactly as `asset import --file` does (LibraryImportService: probing, content
 * addressing, folders, tags, events), in the transaction that records the last part: nothing is
 * placed before every byte has arrived and matched its checksum.
 */
export class UploadService {
  private readonly deps: {
    storage: Storage;
    imports: LibraryImportService;
    pending: PendingInboundService;
    versionLines: VersionLineService;
    limits: UploadLimits;
  };

  constructor(deps: UploadService['deps']) {
    this.deps = deps;
  }

  get limits(): UploadLimits {
    return this.deps.limits;
  }

  /**
   * A new upload of `length` bytes placed as `placement` says; the placement is validated now and
   * the size limit and team quota checked (413), before any byte is sent. A zero-byte upload is
   * complete at once. Needs library:edit.
   */
  async create(ctx: Ctx, input: { length: number; placement: unknown; metadataHeader?: string | null }): Promise<UploadView> {
    requirePermission(ctx, 'library:edit');
    const placement = this.checkPlacement(input.placement);
    const { length } = input;
    if (!Number.isSafeInteger(length) || length < 0) throw invalid('length', 'must be a whole number of bytes, 0 or more');
    const { maxFileBytes, teamQuotaBytes, expirySeconds } = this.deps.limits;
    if (length > maxFileBytes) {
      throw new DomainError('payload_too_large', `The file is larger than the upload limit of ${maxFileBytes} bytes`, undefined, { reason: 'file_too_large' });
    }
    const row = await inTransaction(ctx, async (tx) => {
      // a version line's file is checked now, before any byte (and again when the upload is placed)
      if (placement.versionOf !== undefined && !(await findMember(tx, placement.versionOf))?.live) {
        throw new DomainError('validation_failed', 'versionOf must name a live file of the team', [
          { field: 'versionOf', message: 'must be a live file of the team' },
        ]);
      }
      if (teamQuotaBytes !== null) {
        // one creation at a time per team, so two cannot both fit in the last free bytes
        await lockTeamQuota(tx);
        const used = await teamBytesInUse(tx);
        if (used + length > teamQuotaBytes) {
          throw new DomainError(
            'payload_too_large',
            `The team's storage quota of ${teamQuotaBytes} bytes has ${Math.max(0, teamQuotaBytes - used)} bytes left`,
            undefined,
            {
              reason: 'quota_exceeded',
            },
          );
        }
      }
      const created = await insertUpload(tx, {
        id: randomUUID(),
        teamId: tx.teamId,
        userId: memberIdOf(tx.actor),
        byteLength: length,
        placement,
        metadataHeader: input.metadataHeader ?? null,
        expirySeconds,
      });
      return length === 0 ? this.finish(tx, created) : created;
    });
    return viewOf(row);
  }

  /** The team's upload: 404 when unknown or another team's, 410 when it expired before its last byte. */
  async status(ctx: Ctx, id: string): Promise<UploadView> {
    requirePermission(ctx, 'library:edit');
    const row = UUID.test(id) ? await findUpload(ctx, id) : null;
    if (!row) throw notFound('Upload');
    if (row.status === 'receiving' && row.expired) throw expiredRefusal();
    return viewOf(row);
  }

  /**
   * A PATCH: appends the chunk at `offset` (409 when it is not the upload's offset; 423 while
   * another PATCH holds the upload). The bytes become one part object; with a checksum they are
   * kept only when it matches (460, nothing kept). When the client goes away mid-chunk without a
   * checksum, the bytes that arrived are kept and the offset says where to resume. The last byte
   * places the file in the transaction that records it.
   *
   * While the body arrives the PATCH holds the upload's lease (a token and a time in its row,
   * renewed as the bytes flow), not a database connection: a slow client ties up no connection of
   * the pool, and a process that dies holds the upload only until its lease runs out.
   */
  async append(ctx: Ctx, id: string, chunk: UploadChunk, options: { keepPartial?: boolean } = {}): Promise<UploadView> {
    requirePermission(ctx, 'library:edit');
    if (!UUID.test(id)) throw notFound('Upload');
    const token = randomUUID();
    const upload = await claimUpload(ctx, id, token, LEASE_SECONDS);
    if (upload === null) {
      const row = await findUpload(ctx, id);
      if (row === null) throw notFound('Upload');
      if (row.status === 'receiving' && row.expired) throw expiredRefusal();
      throw refusal('validation_failed', 'Another request is sending bytes to this upload; wait for it and resume', 'upload_locked');
    }
    let held = true;
    let written: string | null = null;
    let completed = false;
    const renewal = setInterval(
      () => {
        renewLease(ctx, id, token, LEASE_SECONDS).catch(() => {});
      },
      (LEASE_SECONDS * 1000) / 3,
    );
    try {
      if (upload.status === 'receiving' && upload.expired) throw expiredRefusal();
      if (chunk.offset !== upload.byteOffset) {
        throw refusal('validation_failed', `Upload-Offset ${chunk.offset} is not the upload's offset ${upload.byteOffset}`, 'upload_offset_mismatch');
      }
      if (upload.status === 'completed') return viewOf(upload);
      const key = partKey(id, upload.parts.length);
      written = key;
      const hash = chunk.checksum ? createHash(chunk.checksum.algorithm) : null;
      const keepPartial = (options.keepPartial ?? true) && chunk.checksum === null;
      const received = await receivePart(this.deps.storage, key, chunk.body, upload.byteLength - upload.byteOffset, hash, keepPartial);
      if (hash && hash.digest('base64') !== chunk.checksum!.digest) {
        throw refusal(
          'validation_failed',
          `The chunk's ${chunk.checksum!.algorithm} does not match Upload-Checksum; nothing of it was kept`,
          'checksum_mismatch',
        );
      }
      if (received === 0) return viewOf(upload);
      const row = await inTransaction(
        ctx,
        async (tx) => {
          // the lease is still this request's (a stalled request may have lost it to another)
          if (!(await lockLeasedUpload(tx, id, token))) {
            throw refusal('validation_failed', 'Another request took over this upload; resume from its offset', 'upload_locked');
          }
          // recorded with the lease released: the commit does both
          const recorded = await recordPart(tx, id, upload.byteOffset + received, [...upload.parts, received], this.deps.limits.expirySeconds);
          if (recorded.byteOffset < recorded.byteLength) return recorded;
          return this.finish(tx, recorded);
        },
        // the request's body can be read once: a conflict is answered (503, Retry-After) and the client resumes
        { maxAttempts: 1 },
      );
      held = false;
      written = null;
      completed = row.status === 'completed';
      return viewOf(row);
    } finally {
      clearInterval(renewal);
      // a part that was not recorded is dropped (the same key is written again on resume)
      if (written !== null) await this.deps.storage.remove(written).catch(() => {});
      if (held) await releaseLease(ctx, id, token).catch(() => {});
      if (completed) await this.deps.storage.removeTree(partsPrefix(id)).catch(() => {});
    }
  }

  /**
   * The one-request upload (`curl -T`, GraphQL `uploadFile`): creation and the whole body at once;
   * a body cut short places nothing (the upload expires).
   */
  async uploadWhole(ctx: Ctx, input: { length: number; placement: unknown; body: Readable }): Promise<UploadView> {
    const created = await this.create(ctx, { length: input.length, placement: input.placement });
    if (created.status === 'completed') return created;
    const view = await this.append(ctx, created.id, { offset: 0, body: input.body, checksum: null }, { keepPartial: false });
    if (view.status !== 'completed') {
      throw invalid('(body)', `The body had ${view.offset} of the ${view.length} bytes Content-Length announced`);
    }
    return view;
  }

  /** tus termination: the upload and its bytes go; 423 while a PATCH holds it. A completed upload's file stays. */
  async terminate(ctx: Ctx, id: string): Promise<void> {
    requirePermission(ctx, 'library:edit');
    if (!UUID.test(id)) throw notFound('Upload');
    const outcome = await deleteUnleasedUpload(ctx, id);
    if (outcome === null) throw notFound('Upload');
    if (outcome === 'leased') throw refusal('validation_failed', 'Another request is sending bytes to this upload; wait for it', 'upload_locked');
    await this.deps.storage.removeTree(partsPrefix(id));
  }

  /**
   * The maintenance job: removes expired uploads (their parts, then their rows), `batch` at a time,
   * skipping any a PATCH holds. Completed uploads are records only; they go when they expire too.
   */
  async purgeExpired(op: UnitOfWork, batch = 100): Promise<number> {
    let purged = 0;
    for (;;) {
      const ids = await inTransaction(op, async (tx) => {
        const expired = await lockExpiredUploads(tx, batch);
        // the bytes go first, under the rows' locks: a failure leaves the rows for the next run
        for (const id of expired) await this.deps.storage.removeTree(partsPrefix(id));
        await deleteUploads(tx, expired);
        return expired;
      });
      purged += ids.length;
      if (ids.length < batch) return purged;
    }
  }

  private checkPlacement(input: unknown): UploadPlacementInput {
    const placement = checkPlacement(input ?? {});
    parseFolderPath(placement.folder);
    normalizeTags(placement.tags);
    normalizeLink(placement.link);
    if (placement.pending && placement.versionOf !== undefined) throw invalid('pending', 'cannot be combined with versionOf');
    if (placement.cover && placement.versionOf === undefined) throw invalid('cover', 'is accepted only with versionOf');
    return placement;
  }

  /**
   * The last byte arrived: the parts are joined into a scratch file (the import's probes read a
   * file: type from the bytes, dimensions, duration, palette), and the file is placed as
   * `asset import --file` places it, with its events, in the caller's transaction.
   */
  private async finish(tx: Ctx, upload: UploadRow): Promise<UploadRow> {
    const placement = upload.placement as UploadPlacementInput;
    const dir = await mkdtemp(join(tmpdir(), 'shelf-upload-'));
    try {
      const path = join(dir, 'upload');
      await assembleParts(this.deps.storage, upload, path);
      const input = Object.fromEntries(
        Object.entries({
          team: upload.teamId,
          file: path,
          folder: placement.folder,
          name: placement.name,
          tags: placement.tags,
          description: placement.description,
          score: placement.score,
          link: placement.link,
          user: upload.userId ?? undefined,
        }).filter(([, value]) => value !== undefined),
      );
      let result: UploadResult;
      if (placement.pending) {
        const held = await this.deps.pending.holdFile(tx, input);
        result = { fileId: null, assetId: null, folderIds: [], pendingIds: held.pendingIds };
      } else {
        const plan = await this.deps.imports.prepareFile(tx, input);
        const placed = await this.deps.imports.place(tx, plan);
        await libraryEvents.imported(tx, placed.id);
        if (placement.versionOf !== undefined) {
          await this.deps.versionLines.addVersion(tx, placement.versionOf, { versionFileId: placed.id, makeCover: placement.cover === true });
        }
        result = { fileId: placed.id, assetId: placed.assetId, folderIds: placed.folderIds, pendingIds: [] };
      }
      return completeUpload(tx, upload.id, result as unknown as Record<string, unknown>);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
