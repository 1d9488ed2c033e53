import { requirePermission } from '../../access/roles.ts';
import { objectKey } from '../../assets/imports/library-import.service.ts';
import type { ObjectReader, Storage } from '../../assets/storage/storage.ts';
import { actorLabel, type Ctx, keyOf, type TeamScope } from '../../platform/ctx.ts';
import { DomainError, invalidFields } from '../../platform/errors.ts';
import { withIdempotency } from '../../platform/idempotency.ts';
import { PageQuery } from '../../platform/pagination.schemas.ts';
import { normalizePage, type Page, paginationOf } from '../../platform/pagination.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { recordActivity } from '../activity/activity-records.ts';
import { countDownloadRecords, type DownloadRecordsOf, deliverableFiles, downloadRecordsPage, insertDownloadRecord } from './download-records.queries.ts';
import { DOWNLOAD_LIMITS, type DownloadRecordView, DownloadRequest } from './product-downloads.schemas.ts';
import { mediaIdsOf, type ProductRecord } from './product-projection.ts';

/** One file of a download, opened lazily by the adapter as the ZIP streams. */
export interface DownloadFile {
  id: number;
  name: string;
  bytes: number;
  storageKey: string;
}

/** A download ready to stream: its committed record, its files and their names in the ZIP. */
export interface PreparedDownload {
  recordId: number;
  replayed: boolean;
  files: DownloadFile[];
  /** One name per file, same order: the file's name, made unique (`a.jpg`, `a (2).jpg`) and free of path separators. */
  entryNames: string[];
}

/** ZIP entry names: a name twice gets ` (2)`, ` (3)` before its extension; separators and dot-only names cannot escape the archive's root. */
export function zipEntryNames(files: Pick<DownloadFile, 'id' | 'name'>[]): string[] {
  const taken = new Set<string>();
  return files.map((file) => {
    const clean = file.name.replaceAll(/[\\/\u0000-\u001f]/g, '_').trim();
    const base = clean === '' || /^\.+$/.test(clean) ? `file-${file.id}` : clean;
    const dot = base.lastIndexOf('.');
    const [stem, extension] = dot > 0 ? [base.slice(0, dot), base.slice(dot)] : [base, ''];
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${stem} (${n})${extension}`;
    taken.add(name.toLowerCase());
    return name;
  });
}

const checkRequest = compileInput(DownloadRequest);
const checkPage = compileInput(PageQuery);

/**
 * Product downloads (docs/products.md "Downloads"). `prepare` checks the rules, the limits and
 * the files, and commits a download record (idempotent with a key: a replay gives the same files
 * and no second record); the adapter then streams the ZIP from storage.
 */
export class ProductDownloadService {
  private readonly storage: Storage;
  private readonly readVisible: (ctx: Ctx, id: number) => Promise<ProductRecord>;

  constructor(deps: { storage: Storage; readVisible: (ctx: Ctx, id: number) => Promise<ProductRecord> }) {
    this.storage = deps.storage;
    this.readVisible = deps.readVisible;
  }

  /** Spec 5: usable or higher with products:read and products:download; more than 100 files or 2 GiB is 413 before anything is written. */
  async prepare(ctx: Ctx, productId: number, input: unknown, idempotencyKey?: string): Promise<PreparedDownload> {
    requirePermission(ctx, 'products:read');
    requirePermission(ctx, 'products:download');
    const body = checkRequest(input ?? {});
    const product = await this.readVisible(ctx, productId);
    const media = mediaIdsOf([product]);
    const wanted = body.assetIds ? [...new Set(body.assetIds)] : media;
    const foreign = wanted.filter((id) => !media.includes(id));
    if (foreign.length > 0) {
      throw invalidFields(foreign.map((id) => ({ field: 'assetIds', message: `${id} is not a media file of this product` })));
    }
    const outcome = await withIdempotency(ctx, { operation: `products.download.${productId}`, key: idempotencyKey, input: body }, async (tx) => ({
      body: await this.record(tx, productId, wanted, null),
      etag: null,
    }));
    // Number(): records stored before ids became integers replay with a string id
    return this.deliverable(ctx, productId, { ...outcome.body, recordId: Number(outcome.body.recordId), replayed: outcome.replayed }, idempotencyKey ?? null);
  }

  /**
   * A download through a product share (docs/products.md "Shares"): the share's files, the same
   * limits, a record naming the share; the caller is the system acting for the share's team.
   */
  async prepareForShare(ctx: Ctx, share: { id: number; productId: number; fileIds: number[] }): Promise<PreparedDownload> {
    const recorded = await inTransaction(ctx, (tx) => this.record(tx, share.productId, share.fileIds, share.id));
    return this.deliverable(ctx, share.productId, { ...recorded, replayed: false }, null);
  }

  /** The limits, then the download record and its activity record, in the caller's transaction. */
  private async record(tx: Ctx, productId: number, wanted: number[], shareId: number | null): Promise<{ recordId: number; fileIds: number[] }> {
    const files = await this.liveFiles(tx, wanted);
    if (files.length === 0) throw new DomainError('not_found', 'The product has no live media file to download');
    const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
    if (files.length > DOWNLOAD_LIMITS.files || bytes > DOWNLOAD_LIMITS.bytes) {
      throw new DomainError(
        'payload_too_large',
        `A download holds at most ${DOWNLOAD_LIMITS.files} files and 2 GiB; this one has ${files.length} files and ${bytes} bytes`,
      );
    }
    const key = keyOf(tx.actor);
    const recordId = await insertDownloadRecord(tx, {
      productId,
      shareId,
      fileIds: files.map((f) => f.id),
      bytes,
      actor: actorLabel(tx.actor),
      keyId: key?.keyId ?? null,
      role: key?.role ?? null,
      requestId: tx.requestId ?? null,
    });
    await recordActivity(tx, 'download', recordId, 'created');
    return { recordId, fileIds: files.map((f) => f.id) };
  }

  /**
   * The recorded files as they are now in storage (a replay records nothing); when some cannot be
   * delivered the record stands, so the answer is 409 mutation_response_unavailable saying how to retry.
   */
  private async deliverable(
    ctx: Ctx,
    productId: number,
    recorded: { recordId: number; fileIds: number[]; replayed: boolean },
    idempotencyKey: string | null,
  ): Promise<PreparedDownload> {
    const files = await this.liveFiles(ctx, recorded.fileIds);
    const missing = await this.missingBytes(files);
    if (files.length < recorded.fileIds.length || missing.length > 0) {
      throw new DomainError(
        'mutation_response_unavailable',
        'The download was recorded but its files cannot be delivered now; retry the same request',
        undefined,
        {
          mutationOutcome: {
            resource: 'download_record',
            id: recorded.recordId,
            replayed: recorded.replayed,
            productId,
            idempotencyKey,
          },
        },
      );
    }
    return { recordId: recorded.recordId, replayed: recorded.replayed, files, entryNames: zipEntryNames(files) };
  }

  /** A file's bytes, opened when the ZIP reaches it; null when they are gone since `prepare`. */
  async open(file: DownloadFile): Promise<ObjectReader | null> {
    return this.storage.openReader(file.storageKey);
  }

  private async missingBytes(files: DownloadFile[]): Promise<DownloadFile[]> {
    const present = await Promise.all(files.map((f) => this.storage.exists(f.storageKey)));
    return files.filter((_, i) => !present[i]);
  }

  /** A product's download records, newest first (the roles that may download it). */
  async listForProduct(ctx: Ctx, productId: number, query: unknown): Promise<Page<DownloadRecordView>> {
    requirePermission(ctx, 'products:download');
    await this.readVisible(ctx, productId);
    return this.list(ctx, { productId }, query);
  }

  /** Every download record of the team (manage only). */
  async listForTeam(ctx: Ctx, query: unknown): Promise<Page<DownloadRecordView>> {
    requirePermission(ctx, 'activity:read');
    return this.list(ctx, 'team', query);
  }

  private async list(ctx: Ctx, of: DownloadRecordsOf, query: unknown): Promise<Page<DownloadRecordView>> {
    const page = normalizePage(checkPage(query ?? {}));
    const [count, items] = await Promise.all([countDownloadRecords(ctx, of), downloadRecordsPage(ctx, of, page.pageSize, (page.page - 1) * page.pageSize)]);
    return { items, pagination: paginationOf(page, count) };
  }

  /**
   * The team's live files among `ids`, in the order asked, with their stored bytes' keys; a hidden
   * version of a version line is delivered as the line's cover, as product media show it.
   */
  private async liveFiles(scope: TeamScope, ids: number[]): Promise<DownloadFile[]> {
    const rows = await deliverableFiles(scope, ids);
    const byId = new Map(rows.map((r) => [r.requested, r]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      return row ? [{ id, name: row.name, bytes: row.bytes, storageKey: objectKey(row.sha256) }] : [];
    });
  }
}
