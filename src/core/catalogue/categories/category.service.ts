import { requirePermission } from '../../access/roles.ts';
import type { Ctx } from '../../platform/ctx.ts';
import { DomainError, invalid, notFound } from '../../platform/errors.ts';
import { checkIfMatch, etagOf, type Versioned } from '../../platform/etag.ts';
import { type IdempotentOutcome, withIdempotency } from '../../platform/idempotency.ts';
import { isResourceId } from '../../platform/ids.ts';
import { normalizePage, type Page, paginationOf } from '../../platform/pagination.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { recordActivity } from '../activity/activity-records.ts';
import type { BrandView } from '../brands/brand.schemas.ts';
import { lockLiveBrandTree } from '../brands/brands.queries.ts';
import {
  countLiveCategories,
  hasLiveCategoryInBrand,
  insertCategory,
  liveBrandsAndCategoriesAmong,
  liveCategoriesAmong,
  liveCategoriesPage,
  liveCategoriesPageWithParents,
  liveChildrenOf,
  liveNode,
  liveNodeCount,
  liveSiblingCount,
  liveSubtree,
  renumberSiblings,
  siblingNameTaken,
  softDeleteCategories,
} from './categories.queries.ts';
import { CATEGORY_MAX_DEPTH, CATEGORY_MAX_NODES_PER_BRAND, CategoryCreate, CategoryPatch, type CategoryView } from './category.schemas.ts';
import type { CategoryIconService } from './category-icon.service.ts';
import { type CategoryNode, viewOf } from './category-tree.ts';
import { applyCategoryPatch } from './category-update.ts';

/** Reports whether a non-deleted product references any of the categories (a subtree about to be deleted). */
export type CategoryDeleteGuard = (tx: Ctx, categoryIds: readonly number[]) => Promise<boolean>;

/** Runs inside the create transaction, after the insert (e.g. binding the library default template). */
export type CategoryCreatedHook = (tx: Ctx, category: { id: number; brandId: number }) => Promise<void>;

const checkCreate = compileInput(CategoryCreate);
const checkPatch = compileInput(CategoryPatch);

function versioned(category: CategoryView): Versioned<CategoryView> {
  return { data: category, etag: etagOf(category) };
}

/** What listCategories takes: a page, and optionally one brand's tree. */
export interface CategoryPageQuery {
  page?: number;
  pageSize?: number;
  brandId?: number;
}

function checkPageQuery(ctx: Ctx, query: CategoryPageQuery): { page: ReturnType<typeof normalizePage>; brandId: number | null } {
  requirePermission(ctx, 'categories:read');
  const page = normalizePage(query);
  if (query.brandId != null && !isResourceId(query.brandId)) throw invalid('brandId', 'must be a positive integer id');
  return { page, brandId: query.brandId ?? null };
}

/** The page's total: a page past the end carries none (the statement counts its rows), so it is counted apart. */
async function totalOf(ctx: Ctx, page: { page: number }, brandId: number | null, items: number, pageTotal: number): Promise<number> {
  return items === 0 && page.page > 1 ? countLiveCategories(ctx, brandId) : pageTotal;
}

/** Category trees of a team's brands (spec 2.3, 3.2, 4.3, 8). */
export class CategoryService {
  private readonly icons: CategoryIconService;
  private readonly deleteGuards: CategoryDeleteGuard[] = [];
  private readonly createdHooks: CategoryCreatedHook[] = [];

  constructor(options: { icons: CategoryIconService }) {
    this.icons = options.icons;
  }

  /** Lets resources that reference categories (products) refuse a subtree deletion (spec 3.2 category_has_products). */
  addDeleteGuard(guard: CategoryDeleteGuard): void {
    this.deleteGuards.push(guard);
  }

  /** Lets other resources act on a new category in its create transaction (spec 4.3: default template binding). */
  addCreatedHook(hook: CategoryCreatedHook): void {
    this.createdHooks.push(hook);
  }

  /** listCategorys (spec 4.3): the flat live tree ordered by brandId, parentId (roots first), sortOrder, id; optional brand filter. */
  async listPage(ctx: Ctx, query: CategoryPageQuery): Promise<Page<CategoryView>> {
    const { page, brandId } = checkPageQuery(ctx, query);
    const { categories, total } = await liveCategoriesPage(ctx, brandId, page.pageSize, (page.page - 1) * page.pageSize);
    return { items: categories, pagination: paginationOf(page, await totalOf(ctx, page, brandId, categories.length, total)) };
  }

  /**
   * listCategories with, read in the same statement, the live parents of its items that are not on
   * the page (GraphQL's `parent` of a page's items): the tree's page and what its items point up to.
   */
  async listPageWithParents(ctx: Ctx, query: CategoryPageQuery): Promise<Page<CategoryView> & { parents: CategoryView[] }> {
    const { page, brandId } = checkPageQuery(ctx, query);
    const { categories, parents, total } = await liveCategoriesPageWithParents(ctx, brandId, page.pageSize, (page.page - 1) * page.pageSize);
    return { items: categories, pagination: paginationOf(page, await totalOf(ctx, page, brandId, categories.length, total)), parents };
  }

  /** getCategory (spec 4.3): one live category of the caller's team, with its ETag; others give 404. */
  async get(ctx: Ctx, id: number): Promise<Versioned<CategoryView>> {
    requirePermission(ctx, 'categories:read');
    const node = await liveNode(ctx, id);
    if (!node) throw notFound('Category');
    return versioned(viewOf(node));
  }

  /** Batch read for GraphQL dataloaders (Category.parent): live categories of the caller's team among `ids`. */
  async findByIds(ctx: Ctx, ids: readonly number[]): Promise<CategoryView[]> {
    requirePermission(ctx, 'categories:read');
    if (ids.length === 0) return [];
    return liveCategoriesAmong(ctx, ids);
  }

  /**
   * Batch read of what a page of products references, brands and categories in one read (GraphQL
   * Product.brand and Product.category); each list needs its own read permission when not empty.
   */
  async findWithBrands(ctx: Ctx, brandIds: readonly number[], categoryIds: readonly number[]): Promise<{ brands: BrandView[]; categories: CategoryView[] }> {
    if (brandIds.length > 0) requirePermission(ctx, 'brands:read');
    if (categoryIds.length > 0) requirePermission(ctx, 'categories:read');
    if (brandIds.length === 0 && categoryIds.length === 0) return { brands: [], categories: [] };
    return liveBrandsAndCategoriesAmong(ctx, brandIds, categoryIds);
  }

  /** Batch read for GraphQL dataloaders (Category.children): the live children of each parent in sibling order, one list per parent id. */
  async findChildrenByParentIds(ctx: Ctx, parentIds: readonly number[]): Promise<CategoryView[][]> {
    requirePermission(ctx, 'categories:read');
    if (parentIds.length === 0) return [];
    const rows = await liveChildrenOf(ctx, parentIds);
    const byParent = Map.groupBy(rows, (row) => row.parentId);
    return parentIds.map((id) => byParent.get(id) ?? []);
  }

  /** For the brand deletion guard (spec 3.2): whether the brand still has live categories. */
  async hasLiveInBrand(tx: Ctx, brandId: number): Promise<boolean> {
    return hasLiveCategoryInBrand(tx, brandId);
  }

  /** createCategory (spec 2.3, 4.3, 8): inserts at a sibling position under a live parent of the same brand, within the depth and node limits. */
  async create(ctx: Ctx, input: unknown, idempotencyKey?: string): Promise<IdempotentOutcome<CategoryView>> {
    requirePermission(ctx, 'categories:create');
    const body = checkCreate(input);
    return withIdempotency(ctx, { operation: 'categories.create', key: idempotencyKey, input: body }, async (tx) => {
      const category = await this.insert(tx, body);
      for (const hook of this.createdHooks) await hook(tx, { id: category.id, brandId: category.brandId });
      await recordActivity(tx, 'category', category.id, 'created');
      return { body: category, etag: etagOf(category) };
    });
  }

  private async insert(tx: Ctx, body: CategoryCreate): Promise<CategoryView> {
    if (!(await lockLiveBrandTree(tx, body.brandId))) throw invalid('brandId', 'must be a live brand of your team');
    if ((await liveNodeCount(tx, body.brandId)) >= CATEGORY_MAX_NODES_PER_BRAND) {
      throw invalid('brandId', `the brand already has ${CATEGORY_MAX_NODES_PER_BRAND} categories`);
    }
    const parentId = body.parentId ?? null;
    let parentPath = '';
    let depth = 1;
    if (parentId !== null) {
      const parent = await liveNode(tx, parentId);
      if (!parent || parent.brandId !== body.brandId) throw invalid('parentId', 'must be a live category of the same brand');
      if (parent.depth >= CATEGORY_MAX_DEPTH) throw invalid('parentId', `a child would be deeper than ${CATEGORY_MAX_DEPTH} levels`);
      parentPath = parent.pathKey;
      depth = parent.depth + 1;
    }
    await this.checkIcon(tx, body.iconAssetId);
    const siblings = await liveSiblingCount(tx, body.brandId, parentId);
    const position = body.sortOrder ?? siblings;
    if (position > siblings) throw invalid('sortOrder', `must be at most ${siblings}, the number of live siblings`);
    if (await siblingNameTaken(tx, body.brandId, parentId, body.name)) {
      throw new DomainError('name_in_use', 'A live sibling category already has this name');
    }
    await renumberSiblings(tx, body.brandId, parentId, 0, position);
    return insertCategory(tx, {
      brandId: body.brandId,
      parentId,
      name: body.name,
      pathKey: `${parentPath}/${body.name}`,
      depth,
      description: body.description ?? null,
      iconEmoji: body.iconEmoji ?? null,
      iconAssetId: body.iconAssetId ?? null,
      sortOrder: position,
      isEnabled: body.isEnabled ?? true,
    });
  }

  /** updateCategory (spec 2.3, 4.3): changes fields, renames or moves (rewriting the subtree's paths); If-Match checked on the locked row. */
  async update(ctx: Ctx, id: number, input: unknown, ifMatch?: string): Promise<Versioned<CategoryView>> {
    requirePermission(ctx, 'categories:update');
    const patch = checkPatch(input);
    return inTransaction(ctx, async (tx) => {
      const current = await this.lockForWrite(tx, id, ifMatch);
      await this.checkIcon(tx, patch.iconAssetId);
      const updated = await applyCategoryPatch(tx, current, patch);
      await recordActivity(tx, 'category', id, 'updated');
      return versioned(updated);
    });
  }

  /** deleteCategory: soft-deletes the whole subtree unless a guard finds a product in it (spec 3.2); renumbers the siblings left. */
  async softDelete(ctx: Ctx, id: number, ifMatch?: string): Promise<Versioned<{ id: number }>> {
    requirePermission(ctx, 'categories:delete');
    return inTransaction(ctx, async (tx) => {
      const current = await this.lockForWrite(tx, id, ifMatch);
      const subtree = await liveSubtree(tx, id);
      for (const hasProducts of this.deleteGuards) {
        if (await hasProducts(tx, subtree.ids)) {
          throw new DomainError('category_has_products', 'A non-deleted product references this category or one of its descendants');
        }
      }
      await softDeleteCategories(tx, subtree.ids);
      await renumberSiblings(tx, current.brandId, current.parentId, 0, null);
      await recordActivity(tx, 'category', id, 'deleted');
      const data = { id };
      return { data, etag: etagOf(data) };
    });
  }

  /**
   * Takes the brand's tree lock, then locks the live category row and checks If-Match against what
   * it holds now. The brand comes first so every writer of a tree takes its locks in one order.
   */
  private async lockForWrite(tx: Ctx, id: number, ifMatch: string | undefined): Promise<CategoryNode> {
    const unlocked = await liveNode(tx, id);
    if (!unlocked || !(await lockLiveBrandTree(tx, unlocked.brandId))) throw notFound('Category');
    const current = await liveNode(tx, id, { lock: true });
    if (!current) throw notFound('Category');
    checkIfMatch(ifMatch, viewOf(current));
    return current;
  }

  private async checkIcon(tx: Ctx, iconAssetId: number | null | undefined): Promise<void> {
    if (iconAssetId == null) return;
    if (!(await this.icons.isIconOfTeam(tx, iconAssetId))) throw invalid('iconAssetId', 'must be a category icon asset of your team');
  }
}
