import { createHash, type Hash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { requirePermission } from '../../access/roles.ts';
import { type Ctx, memberIdOf, type UnitOfWork } from '../../platform/ctx.ts';
import { DomainError, invalid, notFound } from '../../platform/errors.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { normalizeLink, normalizeTags } from '../files/file-rules.ts';
import { libraryEvents } from '../files/library-events.ts';
import { parseFolderPath } from '../folders/folders.ts';
import { storedSource } from '../imports/content-source.ts';
import { type LibraryImportService, objectKey } from '../imports/library-import.service.ts';
import { type ContentFacts, probeContent } from '../imports/probe.ts';
import type { PendingInboundService } from '../pending-inbound/pending-inbound.service.ts';
import { extractPalette, type PaletteColour } from '../search/colour.ts';
import { hasPalette } from '../search/palettes.ts';
import type { AppendedPiece, Storage } from '../storage/storage.ts';
import type { VersionLineService } from '../versions/version-line.service.ts';
import { findMember } from '../versions/version-lines.queries.ts';
import { hashStored, RunningHashes, receivePiece, uploadDataKey, uploadPrefix } from './upload-pieces.ts';
import {
  claimUpload,
  completeUpload,
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
import { type UploadChunk, type UploadLimits, UploadPlacementInput, type UploadResult, type UploadView } from './uploads.schemas.ts';

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
 * process; each PATCH holds the row's lease while its bytes arrive and appends them to the upload's
 * one object through `Storage` (upload-pieces.ts; any backend), hashing them as they pass. The last
 * byte completes that object, probes it where it lies, places it under its content key by the
 * store's own means (a link, a copy inside the bucket), and places the file exactly as
 * `asset import --file` does (folders, tags, events), in the transaction that records the last
 * piece: nothing is placed before every byte has arrived and matched its checksum.
 */
export class UploadService {
  private readonly hashes = new RunningHashes();
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
    const id = randomUUID();
    // an empty file has all its bytes now: stored (and probed) before the transaction that places it
    const empty = length === 0 ? await this.storeEmpty() : null;
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
        id,
        teamId: tx.teamId,
        userId: memberIdOf(tx.actor),
        byteLength: length,
        placement,
        metadataHeader: input.metadataHeader ?? null,
        expirySeconds,
      });
      return empty ? this.finish(tx, created, empty) : created;
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
    const lease = new LeaseWatch(ctx, id, token);
    const upload = await claimUpload(ctx, id, token, LEASE_SECONDS);
    if (upload === null) {
      lease.stop();
      const row = await findUpload(ctx, id);
      if (row === null) throw notFound('Upload');
      if (row.status === 'receiving' && row.expired) throw expiredRefusal();
      throw refusal('validation_failed', 'Another request is sending bytes to this upload; wait for it and resume', 'upload_locked');
    }
    lease.start();
    let held = true;
    let piece: AppendedPiece | null = null;
    let recorded = false;
    let completed = false;
    try {
      if (upload.status === 'receiving' && upload.expired) throw expiredRefusal();
      if (chunk.offset !== upload.byteOffset) {
        throw refusal('validation_failed', `Upload-Offset ${chunk.offset} is not the upload's offset ${upload.byteOffset}`, 'upload_offset_mismatch');
      }
      if (upload.status === 'completed') return viewOf(upload);
      // begun before its bytes were one object (its pieces were objects of their own): it cannot be continued
      if (upload.byteOffset > 0 && upload.storeState === null) throw expiredRefusal();
      const checksum = chunk.checksum ? createHash(chunk.checksum.algorithm) : null;
      const running = this.hashes.take(id, upload.byteOffset);
      piece = await receivePiece(
        this.deps.storage,
        uploadDataKey(id),
        { offset: upload.byteOffset, length: upload.byteLength, state: upload.storeState },
        chunk.body,
        {
          room: upload.byteLength - upload.byteOffset,
          hashes: [checksum, running].filter((hash): hash is Hash => hash !== null),
          keepPartial: (options.keepPartial ?? true) && chunk.checksum === null,
          requireLease: () => lease.require(),
        },
      );
      if (checksum && checksum.digest('base64') !== chunk.checksum!.digest) {
        throw refusal(
          'validation_failed',
          `The chunk's ${chunk.checksum!.algorithm} does not match Upload-Checksum; nothing of it was kept`,
          'checksum_mismatch',
        );
      }
      if (piece.written === 0) return viewOf(upload);
      const offset = upload.byteOffset + piece.written;
      const state = piece.state;
      // the last byte: the object is completed, probed and placed by key before the transaction
      const stored = offset === upload.byteLength ? await this.storeUpload(upload, state, running) : null;
      const row = await inTransaction(
        ctx,
        async (tx) => {
          // the lease is still this request's (a stalled request may have lost it to another)
          if (!(await lockLeasedUpload(tx, id, token))) {
            throw refusal('validation_failed', 'Another request took over this upload; resume from its offset', 'upload_locked');
          }
          // recorded with the lease released: the commit does both
          const next = await recordPart(tx, id, { offset, parts: [...upload.parts, piece!.written], storeState: state }, this.deps.limits.expirySeconds);
          return stored ? this.finish(tx, next, stored) : next;
        },
        // the request's body can be read once: a conflict is answered (503, Retry-After) and the client resumes
        { maxAttempts: 1 },
      );
      held = false;
      recorded = true;
      completed = row.status === 'completed';
      if (!completed && running) this.hashes.keep(id, offset, running);
      return viewOf(row);
    } finally {
      lease.stop();
      // a piece not recorded leaves nothing (the same bytes are appended again on resume)
      if (piece && !recorded) await piece.drop().catch(() => {});
      if (piece && recorded && !completed) await piece.recorded().catch(() => {});
      if (held) await releaseLease(ctx, id, token).catch(() => {});
      // not waited for: the file is placed, and what is left under the prefix is removed behind the answer
      if (completed) void this.deps.storage.removeTree(uploadPrefix(id)).catch(() => {});
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
    await this.deps.storage.removeTree(uploadPrefix(id));
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
        for (const id of expired) await this.deps.storage.removeTree(uploadPrefix(id));
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
   * The last byte arrived: the upload's object is completed and placed under its content key by
   * the store (no byte rewritten; identical bytes stored once), and probed where it lies
   * (content-source.ts), as `asset import` probes a file. The hash is the one computed as the
   * pieces arrived, or, when another process received some of them, one read of the object.
   */
  private async storeUpload(upload: UploadRow, state: Record<string, unknown>, running: Hash | null): Promise<StoredUpload> {
    const { storage } = this.deps;
    const key = uploadDataKey(upload.id);
    await storage.completeAppends(key, state, upload.byteLength);
    const sha256 = running ? running.digest('hex') : await hashStored(storage, key);
    const stored = await this.probeStored(key, upload.byteLength, sha256);
    await storage.placeAs(key, objectKey(sha256));
    // a permanent delete that takes the bytes before the placement commits: placed again from the upload
    return { ...stored, restore: async () => void (await storage.placeAs(key, objectKey(sha256))) };
  }

  /** An empty file's bytes, stored (once, content-addressed) and probed. */
  private async storeEmpty(): Promise<StoredUpload> {
    const { storage } = this.deps;
    const key = objectKey(createHash('sha256').digest('hex'));
    const store = async () => {
      if (!(await storage.exists(key))) await storage.put(key, Buffer.alloc(0));
    };
    await store();
    return { ...(await this.probeStored(key, 0, createHash('sha256').digest('hex'))), restore: store };
  }

  private async probeStored(key: string, size: number, sha256: string): Promise<Omit<StoredUpload, 'restore'>> {
    const source = storedSource(this.deps.storage, key, size);
    try {
      const facts = await probeContent(source, { sha256, byteSize: size });
      const palette = hasPalette(facts) ? await extractPalette(await source.forSharp()) : [];
      return { facts, palette };
    } finally {
      await source.close();
    }
  }

  /** Places the stored upload as `asset import --file` places a file, with its events, in the caller's transaction. */
  private async finish(tx: Ctx, upload: UploadRow, stored: StoredUpload): Promise<UploadRow> {
    const placement = upload.placement as UploadPlacementInput;
    const input = Object.fromEntries(
      Object.entries({
        team: upload.teamId,
        // names the file when the placement does not, as the scratch file of an import would
        file: 'upload',
        folder: placement.folder,
        name: placement.name,
        tags: placement.tags,
        description: placement.description,
        score: placement.score,
        link: placement.link,
        user: upload.userId ?? undefined,
      }).filter(([, value]) => value !== undefined),
    );
    const plan = await this.deps.imports.prepareStored(tx, input, stored);
    let result: UploadResult;
    if (placement.pending) {
      const held = await this.deps.pending.holdPlan(tx, plan);
      result = { fileId: null, assetId: null, folderIds: [], pendingIds: held.pendingIds };
    } else {
      const placed = await this.deps.imports.place(tx, plan);
      await libraryEvents.imported(tx, placed.id);
      if (placement.versionOf !== undefined) {
        await this.deps.versionLines.addVersion(tx, placement.versionOf, { versionFileId: placed.id, makeCover: placement.cover === true });
      }
      result = { fileId: placed.id, assetId: placed.assetId, folderIds: placed.folderIds, pendingIds: [] };
    }
    return completeUpload(tx, upload.id, result as unknown as Record<string, unknown>);
  }
}

/** An upload's bytes placed under their content key, with what the import records about them. */
interface StoredUpload {
  facts: ContentFacts;
  palette: PaletteColour[];
  /** Places the bytes under their key again (a permanent delete took them meanwhile). */
  restore: () => Promise<void>;
}

/**
 * A PATCH's hold on its upload while the bytes arrive: the lease renewed every third of its
 * length, and the time until which this process may still write. That time is counted from
 * before each renewal was sent, less a margin, so it ends before the database's lease does: a
 * request that stalled and lost its upload to another stops writing before the other starts.
 */
class LeaseWatch {
  private readonly scope: Ctx;
  private readonly id: string;
  private readonly token: string;
  private validUntil: number;
  private timer: NodeJS.Timeout | null = null;

  constructor(scope: Ctx, id: string, token: string) {
    this.scope = scope;
    this.id = id;
    this.token = token;
    this.validUntil = Date.now() + LEASE_SECONDS * 1000 - LEASE_MARGIN_MS;
  }

  start(): void {
    this.timer = setInterval(
      () => {
        const sent = Date.now();
        renewLease(this.scope, this.id, this.token, LEASE_SECONDS).then(
          (held) => {
            this.validUntil = held ? sent + LEASE_SECONDS * 1000 - LEASE_MARGIN_MS : 0;
          },
          () => {},
        );
      },
      (LEASE_SECONDS * 1000) / 3,
    );
  }

  require(): void {
    if (Date.now() >= this.validUntil) throw refusal('validation_failed', 'Another request took over this upload; resume from its offset', 'upload_locked');
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** How long before the database's lease ends a PATCH stops writing. */
const LEASE_MARGIN_MS = 3000;
