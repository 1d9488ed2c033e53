import { actorMay } from '../../access/roles.ts';
import type { CallerScope, Ctx, TeamScope } from '../../platform/ctx.ts';
import { isResourceId } from '../../platform/ids.ts';
import type { Page } from '../../platform/pagination.ts';
import type { LinkSigner } from '../delivery/links.ts';
import { isDerivableImage } from '../delivery/previews.ts';
import { liveFolderAtPath, liveFoldersAmong } from '../folders/folders.queries.ts';
import { parseFolderPath } from '../folders/folders.ts';
import { type AssetLookupItem, type LookupMemos, lookupAssets } from './asset-lookup.ts';
import { liveFilesAmong, type MediaRow, visibleMediaRows } from './files.queries.ts';
import type { FolderView, LibraryFileView, MediaObject } from './library.schemas.ts';

/** The valid ids among `ids` (others can match nothing anyway). */
function validIds(ids: readonly number[]): number[] {
  return ids.filter(isResourceId);
}

/** Spec 5: download links need usable or higher plus products:read and products:download. */
export function mayDownload(ctx: CallerScope): boolean {
  return actorMay(ctx.actor, 'products:read') && actorMay(ctx.actor, 'products:download');
}

/** How `mediaFor` signs links: never past `untilMs` (epoch ms), and with no downloadUrl when `downloadUrl` is false. */
export interface MediaLinkOptions {
  untilMs?: number | null;
  downloadUrl?: boolean;
}

/**
 * Team-scoped reads of the library, shared by products (media references, spec 2.5), asset search
 * and events. Every query filters by team and live rows: another team's ids simply match nothing.
 * Permissions are the calling operation's business (products:read, search), except download links.
 */
export class LibraryService {
  private readonly signer: LinkSigner;
  private readonly lookupMemos: LookupMemos | null;

  /** `lookupMemos`: lookup facts kept per library version (asset-lookup.ts); without them every page counts afresh. */
  constructor(deps: { signer: LinkSigner; lookupMemos?: LookupMemos }) {
    this.signer = deps.signer;
    this.lookupMemos = deps.lookupMemos ?? null;
  }

  /** Asset lookup (`GET /v1/assets`, asset-lookup.ts): the team's files by name, folder, extension, content hash or id. */
  async lookup(ctx: Ctx, input: unknown): Promise<Page<AssetLookupItem>> {
    return lookupAssets(ctx, this, this.lookupMemos, input);
  }

  /** Live files of the team among `ids` (file-path IDs), ordered by id; for validating product media (spec 4.5). */
  async findFilesByIds(scope: TeamScope, ids: readonly number[]): Promise<LibraryFileView[]> {
    if (ids.length === 0) return [];
    return liveFilesAmong(scope, validIds(ids));
  }

  /** Live folders of the team among `ids`, ordered by id. */
  async findFoldersByIds(scope: TeamScope, ids: readonly number[]): Promise<FolderView[]> {
    if (ids.length === 0) return [];
    return liveFoldersAmong(scope, validIds(ids));
  }

  /** The live folder at a path like /a/b (syntax as in `asset import --folder`), or null; "/" is the root and has no row. */
  async findFolderByPath(scope: TeamScope, path: string): Promise<FolderView | null> {
    const segments = parseFolderPath(path);
    if (segments.length === 0) return null;
    return liveFolderAtPath(scope, `/${segments.join('/')}`);
  }

  /**
   * Spec 2.5 media objects for file-path IDs, keyed by id; unknown, deleted and other teams' ids
   * are absent. Links are signed and expire per spec 8, bounded by the caller's key expiry:
   * derivable images get a derived preview (3600 s), other images the original as preview
   * (300 s), everything else no preview; downloadUrl (300 s) only for callers who may download.
   */
  async mediaFor(ctx: Ctx, ids: readonly number[], nowMs = Date.now(), links: MediaLinkOptions = {}): Promise<Map<number, MediaObject>> {
    const media = new Map<number, MediaObject>();
    if (ids.length === 0) return media;
    // a hidden version of a version line stands for the line's cover (docs/library.md "Version lines")
    const rows = await visibleMediaRows(ctx, validIds(ids));
    const download = links.downloadUrl !== false && mayDownload(ctx);
    for (const row of rows) media.set(row.requested, this.mediaObject(ctx, row, download, nowMs, links.untilMs ?? null));
    return media;
  }

  private mediaObject(ctx: Ctx, row: MediaRow, download: boolean, nowMs: number, untilMs: number | null): MediaObject {
    const target = { teamId: ctx.teamId, fileId: row.id };
    let previewUrl: string | null = null;
    if (isDerivableImage(row)) previewUrl = this.signer.issue(ctx.actor, { ...target, purpose: 'preview' }, nowMs, untilMs).url;
    else if (row.mimeType.startsWith('image/')) previewUrl = this.signer.issue(ctx.actor, { ...target, purpose: 'preview-original' }, nowMs, untilMs).url;
    const media: MediaObject = {
      id: row.id,
      name: row.name,
      mimeType: row.mimeType,
      size: row.size,
      width: row.width,
      height: row.height,
      duration: row.durationMs === null ? null : row.durationMs / 1000,
      previewUrl,
    };
    if (download) {
      const link = this.signer.issue(ctx.actor, { ...target, purpose: 'download' }, nowMs, untilMs);
      media.downloadUrl = link.url;
      media.downloadUrlExpiresAt = new Date(link.expiresAt * 1000).toISOString();
    }
    return media;
  }
}
