import { Type, type Static } from 'typebox';
import { actorLabel, type Ctx, type UnitOfWork } from '../../platform/ctx.ts';
import type { AttemptLimiter } from '../../platform/attempt-limiter.ts';
import { DomainError, invalid, notFound } from '../../platform/errors.ts';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';
import { escapeLike, queryOne, queryRows } from '../../platform/sql.ts';
import { compileInput } from '../../platform/validate.ts';
import { parseFolderPath } from '../folders/folders.ts';
import { requireTeam } from '../../access/require-team.ts';
import type { LinkSigner } from '../delivery/links.ts';
import { ASSET_ROW_COLUMNS, ASSET_TAGS_COLUMN, toAssetItem, type AssetRow } from '../search/asset-items.ts';
import { SearchShareRequest, type FolderDTO, type ShareSearchResult } from '../search/search.schemas.ts';
import { Issues, pageOf, SEARCH_DEFAULTS } from '../search/search-filter.ts';
import { hashSharePassword, hashShareToken, newShareToken, verifySharePassword } from './share-secrets.ts';

/** Input of `share create` (CONTRACT.md); keys are the CLI flag names so details name the flag. */
export const CreateShareInput = Type.Object(
  {
    team: Type.Integer({ minimum: 1, maximum: MAX_RESOURCE_ID }),
    folder: Type.String({ minLength: 1, maxLength: 8192, description: 'Path of an existing folder, like /a/b.' }),
    password: Type.Optional(Type.String({ minLength: 4, maxLength: 128, pattern: '^[^\\u0000-\\u001f\\u007f]*$', description: '4-128 characters.' })),
  },
  { $id: 'CreateShareInput', additionalProperties: false },
);
export type CreateShareInput = Static<typeof CreateShareInput>;

const checkCreate = compileInput(CreateShareInput);
const checkSearch = compileInput(SearchShareRequest);

interface ShareRow {
  rootId: number;
  passwordHash: string | null;
}

/**
 * Shares of a folder (spec 4.6 search-share, CONTRACT.md `share create`). A token reaches its
 * folder and that folder's descendants only: every query below is bounded by the share's team and
 * by `path_ids @> {root}`, so neither another folder of the team nor another team is reachable.
 */
export class FolderShareService {
  private readonly deps: { signer: LinkSigner; limiter: AttemptLimiter };

  constructor(deps: { signer: LinkSigner; limiter: AttemptLimiter }) {
    this.deps = deps;
  }

  /** `share create`: a new unguessable token for an existing folder, optionally password-protected; the token is shown once. */
  async create(op: UnitOfWork, input: unknown): Promise<{ linkToken: string }> {
    const body = checkCreate(input);
    const segments = parseFolderPath(body.folder);
    if (segments.length === 0) throw invalid('folder', 'must name a folder, not the library root');
    if (body.password !== undefined && body.password.trim().length === 0) throw invalid('password', 'must not be blank');
    await requireTeam(op, body.team);
    const folder = await queryOne<{ id: number }>(op, 'select id from library_folders where team_id = ? and path = ? and deleted_at is null', [
      body.team,
      `/${segments.join('/')}`,
    ]);
    if (!folder) throw invalid('folder', 'no such folder in the team library');
    const linkToken = newShareToken();
    const passwordHash = body.password === undefined ? null : await hashSharePassword(body.password);
    await queryRows(op, 'insert into library_shares (team_id, folder_id, token_hash, password_hash) values (?, ?, ?, ?)', [
      body.team,
      folder.id,
      hashShareToken(linkToken),
      passwordHash,
    ]);
    return { linkToken };
  }

  /**
   * search-share: the files directly in the share root or a folder under it, whose names contain
   * `keyword`, ordered by name; with needChildren also its child folders (docs/search.md).
   */
  async search(ctx: Ctx, input: unknown, nowMs = Date.now()): Promise<ShareSearchResult> {
    const body = checkSearch(input);
    const issues = new Issues();
    const page = pageOf(issues, body.startPoint, body.endPoint, SEARCH_DEFAULTS.shareEndPoint);
    issues.throwIfAny();
    const share = await this.openShare(ctx, body.linkToken, body.password ?? undefined);
    const folderId = await this.targetFolder(ctx, share.rootId, body.folderId ?? undefined, body.isRoot ?? false);
    const keyword = body.keyword?.trim().toLowerCase() || null;
    const nameLike = keyword === null ? null : `%${escapeLike(keyword)}%`;
    const where = `f.team_id = ? and f.deleted_at is null and f.folder_id = ?${nameLike ? ' and lower(f.name) like ?' : ''}`;
    const params = [ctx.teamId, folderId, ...(nameLike ? [nameLike] : [])];
    const [rows, counted, folders] = await Promise.all([
      page.limit === 0
        ? Promise.resolve([])
        : queryRows<AssetRow>(
            ctx,
            `select ${ASSET_ROW_COLUMNS}, ${ASSET_TAGS_COLUMN}
               from library_files f left join library_folders d on d.id = f.folder_id and d.team_id = f.team_id
              where ${where} order by lower(f.name), f.id limit ? offset ?`,
            [...params, page.limit, page.offset],
          ),
      queryOne<{ n: number }>(ctx, `select count(*)::float8 as n from library_files f where ${where}`, params),
      body.needChildren ? this.childFolders(ctx, folderId, nameLike) : Promise.resolve([]),
    ]);
    const links = { actor: ctx.actor, teamId: ctx.teamId, derivative: null, nowMs };
    return { assets: rows.map((row) => toAssetItem(row, this.deps.signer, links)), totalCount: counted!.n, folders, folderCount: folders.length };
  }

  /**
   * The share behind a token, of the caller's team and with a live folder: otherwise 404
   * share_not_found (the same answer for every case, so a token's existence elsewhere never shows).
   * A protected share needs its password: 403 share_password_required / share_password_invalid.
   */
  private async openShare(ctx: Ctx, token: string, password: string | undefined): Promise<ShareRow> {
    const share = await queryOne<ShareRow & { id: number }>(
      ctx,
      `select s.id, s.folder_id as "rootId", s.password_hash as "passwordHash"
         from library_shares s join library_folders d on d.id = s.folder_id and d.team_id = s.team_id and d.deleted_at is null
        where s.token_hash = ? and s.team_id = ?`,
      [hashShareToken(token), ctx.teamId],
    );
    if (!share) throw new DomainError('share_not_found', 'No share has this token');
    if (share.passwordHash !== null) {
      if (password === undefined || password.length === 0) throw new DomainError('share_password_required', 'This share is protected by a password');
      // failed guesses are counted per share and caller, across processes
      const attempts = `share:${ctx.teamId}:${share.id}:${actorLabel(ctx.actor)}`;
      await this.deps.limiter.check(attempts);
      if (!(await verifySharePassword(password, share.passwordHash))) {
        await this.deps.limiter.recordFailure(attempts);
        throw new DomainError('share_password_invalid', 'The share password is wrong');
      }
    }
    return share;
  }

  /** The folder to list: the root, or a live folder under it (404 not_found for anything else). */
  private async targetFolder(ctx: Ctx, rootId: number, folderId: number | undefined, isRoot: boolean): Promise<number> {
    if (folderId === undefined || folderId === rootId) return rootId;
    if (isRoot) throw invalid('folderId', 'must be the share root (or be omitted) when isRoot is true');
    const folder = await queryOne<{ id: number }>(
      ctx,
      'select id from library_folders where id = ? and team_id = ? and deleted_at is null and path_ids @> array[?]::int[]',
      [folderId, ctx.teamId, rootId],
    );
    if (!folder) throw notFound('Folder');
    return folder.id;
  }

  private async childFolders(ctx: Ctx, folderId: number, nameLike: string | null): Promise<FolderDTO[]> {
    return queryRows<FolderDTO>(
      ctx,
      `select c.id, c.name from library_folders c
        where c.team_id = ? and c.parent_id = ? and c.deleted_at is null${nameLike ? ' and lower(c.name) like ?' : ''}
        order by lower(c.name), c.id`,
      [ctx.teamId, folderId, ...(nameLike ? [nameLike] : [])],
    );
  }
}
