import { actorMay } from '../../access/roles.ts';
import type { Ctx, TeamScope, CallerScope } from '../../platform/ctx.ts';
import { isResourceId } from '../../platform/ids.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';
import { parseFolderPath } from '../folders/folders.ts';
import { VISIBLE_FROM, VISIBLE_ID, VISIBLE_WHERE } from '../versions/visible-files.ts';
import { lookupAssets, type AssetLookupItem, type LookupMemos } from './asset-lookup.ts';
import type { Page } from '../../platform/pagination.ts';
import type { FolderView, LibraryFileView, MediaObject } from './library.schemas.ts';
import type { LinkSigner } from '../delivery/links.ts';
import { isDerivableImage } from '../delivery/previews.ts';

const FILE_COLUMNS = `f.id, f.object_id as "objectId", f.folder_id as "folderId", coalesce(d.path_ids, '{}') as "folderIds",
  f.name, f.extension, f.mime_type as "mimeType", f.byte_size::text as size, f.width, f.height,
  f.duration_ms::float8 as "durationMs", f.description, f.score, f.link, f.source,
  f.owner_id as "ownerUserId", f.creator_id as "creatorUserId", f.create_user_id as "createUserId", f.update_user_id as "updateUserId",
  coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name) order by t.name, t.id)
              from library_file_tags ft join library_tags t on t.id = ft.tag_id and t.team_id = ft.team_id
             where ft.file_id = f.id and ft.team_id = f.team_id), '[]') as tags,
  ${isoSql('f.created_at')} as "createdAt", ${isoSql('f.updated_at')} as "updatedAt"`;

const FOLDER_COLUMNS = `id, parent_id as "parentId", name, path, path_ids as "pathIds", ${isoSql('created_at')} as "createdAt"`;

/** A Postgres int[] literal of the valid ids among `ids` (others can match nothing anyway). */
function idArray(ids: readonly number[]): string {
  return intArray(ids.filter(isResourceId));
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

interface MediaRow {
  id: number;
  name: string;
  mimeType: string;
  size: string;
  width: number | null;
  height: number | null;
  durationMs: number | null;
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
    const rows = await queryRows<LibraryFileView>(
      scope,
      `select ${FILE_COLUMNS} from library_files f
         left join library_folders d on d.id = f.folder_id and d.team_id = f.team_id
        where f.team_id = ? and f.deleted_at is null and f.id = any(?::int[])
        order by f.id`,
      [scope.teamId, idArray(ids)],
    );
    return rows.map((row) => ({ ...row, folderIds: row.folderIds.map(Number) }));
  }

  /** Live folders of the team among `ids`, ordered by id. */
  async findFoldersByIds(scope: TeamScope, ids: readonly number[]): Promise<FolderView[]> {
    if (ids.length === 0) return [];
    const rows = await queryRows<FolderView>(
      scope,
      `select ${FOLDER_COLUMNS} from library_folders where team_id = ? and deleted_at is null and id = any(?::int[]) order by id`,
      [scope.teamId, idArray(ids)],
    );
    return rows.map((row) => ({ ...row, pathIds: row.pathIds.map(Number) }));
  }

  /** The live folder at a path like /a/b (syntax as in `asset import --folder`), or null; "/" is the root and has no row. */
  async findFolderByPath(scope: TeamScope, path: string): Promise<FolderView | null> {
    const segments = parseFolderPath(path);
    if (segments.length === 0) return null;
    const row = await queryOne<FolderView>(scope, `select ${FOLDER_COLUMNS} from library_folders where team_id = ? and path = ? and deleted_at is null`, [
      scope.teamId,
      `/${segments.join('/')}`,
    ]);
    return row && { ...row, pathIds: row.pathIds.map(Number) };
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
    const rows = await queryRows<MediaRow & { requested: number }>(
      ctx,
      `select r.id as requested, f.id, f.name, f.mime_type as "mimeType", f.byte_size::text as size, f.width, f.height, f.duration_ms::float8 as "durationMs"
         from ${VISIBLE_FROM}
         join library_files f on f.team_id = r.team_id and f.deleted_at is null and f.id = ${VISIBLE_ID}
        where r.team_id = ? and r.id = any(?::int[]) and ${VISIBLE_WHERE}`,
      [ctx.teamId, idArray(ids)],
    );
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
