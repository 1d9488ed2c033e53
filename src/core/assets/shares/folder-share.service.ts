import { type Static, Type } from 'typebox';
import { requireTeam } from '../../access/require-team.ts';
import { admitStored } from '../../platform/answer-budget.ts';
import type { AttemptLimiter } from '../../platform/attempt-limiter.ts';
import { actorLabel, type Ctx, type UnitOfWork } from '../../platform/ctx.ts';
import { DomainError, invalid, notFound } from '../../platform/errors.ts';
import { MAX_RESOURCE_ID } from '../../platform/ids.ts';
import { escapeLike } from '../../platform/sql.ts';
import { compileInput } from '../../platform/validate.ts';
import type { LinkSigner } from '../delivery/links.ts';
import { liveFolderAtPath } from '../folders/folders.queries.ts';
import { parseFolderPath } from '../folders/folders.ts';
import { toAssetItem } from '../search/asset-items.ts';
import { type AssetRow, assetRowsBytes, assetRowsInOrder } from '../search/asset-rows.queries.ts';
import { SearchShareRequest, type ShareSearchResult } from '../search/search.schemas.ts';
import { Issues, pageOf, SEARCH_DEFAULTS } from '../search/search-filter.ts';
import { hashSharePassword, hashShareToken, newShareToken, verifySharePassword } from './share-secrets.ts';
import { countFolderFiles, folderFileIdsPage, insertShare, isLiveFolderUnder, liveChildFolders, type OpenedShare, shareByTokenHash } from './shares.queries.ts';

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

/**
 * Shares of a folder (spec 4.6 search-share, CONTRACT.md `share create`). A token reaches its
 * folder and that folder's descendants only: every statement it runs (shares.queries.ts) is
 * bounded by the share's team and by `path_ids @> {root}`, so neither another folder of the team
 * nor another team is reachable.
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
    const folder = await liveFolderAtPath({ em: op.em, teamId: body.team }, `/${segments.join('/')}`);
    if (folder === null) throw invalid('folder', 'no such folder in the team library');
    const folderId = folder.id;
    const linkToken = newShareToken();
    const passwordHash = body.password === undefined ? null : await hashSharePassword(body.password);
    await insertShare(op, { teamId: body.team, folderId, tokenHash: hashShareToken(linkToken), passwordHash });
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
    const [rows, totalCount, folders] = await Promise.all([
      page.limit === 0 ? Promise.resolve([]) : this.pageRows(ctx, folderId, nameLike, page),
      countFolderFiles(ctx, folderId, nameLike),
      body.needChildren ? liveChildFolders(ctx, folderId, nameLike) : Promise.resolve([]),
    ]);
    const links = { actor: ctx.actor, teamId: ctx.teamId, derivative: null, nowMs };
    return { assets: rows.map((row) => toAssetItem(row, this.deps.signer, links)), totalCount, folders, folderCount: folders.length };
  }

  /** The page's files (ids first, then their rows with tags), admitted against the answer's memory budget before the rows are read. */
  private async pageRows(ctx: Ctx, folderId: number, nameLike: string | null, page: { limit: number; offset: number }): Promise<AssetRow[]> {
    const ids = await folderFileIdsPage(ctx, folderId, nameLike, page.limit, page.offset);
    if (ctx.answer) await admitStored(ctx, await assetRowsBytes(ctx, ids));
    return assetRowsInOrder(ctx, ids);
  }

  /**
   * The share behind a token, of the caller's team and with a live folder: otherwise 404
   * share_not_found (the same answer for every case, so a token's existence elsewhere never shows).
   * A protected share needs its password: 403 share_password_required / share_password_invalid.
   */
  private async openShare(ctx: Ctx, token: string, password: string | undefined): Promise<OpenedShare> {
    const share = await shareByTokenHash(ctx, hashShareToken(token));
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
    if (!(await isLiveFolderUnder(ctx, folderId, rootId))) throw notFound('Folder');
    return folderId;
  }
}
