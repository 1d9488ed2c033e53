import { requirePermission } from '../../access/roles.ts';
import type { Ctx } from '../../platform/ctx.ts';
import { DomainError, invalid, notFound } from '../../platform/errors.ts';
import { checkIfMatch, etagOf, type Versioned } from '../../platform/etag.ts';
import { type IdempotentOutcome, withIdempotency } from '../../platform/idempotency.ts';
import { randomCode } from '../../platform/ids.ts';
import { normalizePage, type Page, paginationOf } from '../../platform/pagination.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { recordActivity } from '../activity/activity-records.ts';
import { BrandCreate, BrandCreateExtended, BrandPatch, BrandPatchExtended, type BrandView } from './brand.schemas.ts';
import {
  type BrandChanges,
  type BrandValues,
  countLiveBrands,
  insertBrand,
  liveBrand,
  liveBrandsAmong,
  liveBrandsPage,
  lockLiveBrand,
  softDeleteBrand,
  updateBrand,
} from './brands.queries.ts';
import { normalizeLogoUrl, normalizeWebsite } from './logo-url.ts';

/** Reports whether live rows of another resource still depend on a brand (e.g. categories, products). */
export type BrandDependentCheck = (tx: Ctx, brandId: number) => Promise<boolean>;

const checkCreate = { spec: compileInput(BrandCreate), extended: compileInput(BrandCreateExtended) };
const checkPatch = { spec: compileInput(BrandPatch), extended: compileInput(BrandPatchExtended) };

/**
 * Which fields a caller may set: `spec`, exactly those of spec 4.2 (REST: unknown fields are
 * 422), or `extended`, also website, sortOrder and isEnabled (GraphQL, operators).
 */
export type BrandFields = 'spec' | 'extended';

function trimmedName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 128) throw invalid('name', 'must be 1-128 characters after trimming');
  return trimmed;
}

function versioned(brand: BrandView): Versioned<BrandView> {
  return { data: brand, etag: etagOf(brand) };
}

/** Brands of a team's catalogue (spec 2.2, 4.2). */
export class BrandService {
  private readonly logoHosts: readonly string[];
  private readonly dependentChecks: BrandDependentCheck[] = [];

  constructor(options: { logoHosts: readonly string[] }) {
    this.logoHosts = options.logoHosts;
  }

  /** Lets resources that reference brands (categories, products) guard brand deletion. */
  addDependentCheck(check: BrandDependentCheck): void {
    this.dependentChecks.push(check);
  }

  /** listBrands: live brands ordered by sortOrder then id, ordinary pagination. */
  async listPage(ctx: Ctx, query: { page?: number; pageSize?: number }): Promise<Page<BrandView>> {
    requirePermission(ctx, 'brands:read');
    const page = normalizePage(query);
    const { brands, total: pageTotal } = await liveBrandsPage(ctx, page.pageSize, (page.page - 1) * page.pageSize);
    let total = pageTotal;
    if (brands.length === 0 && page.page > 1) total = await countLiveBrands(ctx);
    return { items: brands, pagination: paginationOf(page, total) };
  }

  /** getBrand: one live brand of the caller's team, with its ETag. */
  async get(ctx: Ctx, id: number): Promise<Versioned<BrandView>> {
    requirePermission(ctx, 'brands:read');
    const brand = await liveBrand(ctx, id);
    if (!brand) throw notFound('Brand');
    return versioned(brand);
  }

  /** Batch read for dataloaders: live brands of the caller's team among `ids`. */
  async findByIds(ctx: Ctx, ids: readonly number[]): Promise<BrandView[]> {
    requirePermission(ctx, 'brands:read');
    if (ids.length === 0) return [];
    return liveBrandsAmong(ctx, ids);
  }

  /** createBrand: a new brand with a server-generated unique code; idempotent with a key. */
  async create(ctx: Ctx, input: unknown, idempotencyKey?: string, fields: BrandFields = 'extended'): Promise<IdempotentOutcome<BrandView>> {
    requirePermission(ctx, 'brands:create');
    const body: BrandCreateExtended = checkCreate[fields](input);
    const values: BrandValues = {
      name: trimmedName(body.name),
      description: body.description ?? null,
      website: normalizeWebsite(body.website),
      logoUrl: normalizeLogoUrl(body.logoUrl, this.logoHosts),
      sortOrder: body.sortOrder ?? 0,
      isEnabled: body.isEnabled ?? true,
    };
    return withIdempotency(ctx, { operation: 'brands.create', key: idempotencyKey, input: body }, async (tx) => {
      const brand = await this.insertWithFreshCode(tx, values);
      await recordActivity(tx, 'brand', brand.id, 'created');
      return { body: brand, etag: etagOf(brand) };
    });
  }

  private async insertWithFreshCode(tx: Ctx, values: BrandValues): Promise<BrandView> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const brand = await insertBrand(tx, values, `B${randomCode(9)}`);
      if (brand) return brand;
    }
    throw new DomainError('code_in_use', 'Could not generate an unused brand code; retry');
  }

  /** updateBrand: changes the given fields; with If-Match, only if the brand is unchanged since that read. */
  async update(ctx: Ctx, id: number, input: unknown, ifMatch?: string, fields: BrandFields = 'extended'): Promise<Versioned<BrandView>> {
    requirePermission(ctx, 'brands:update');
    const patch: BrandPatchExtended = checkPatch[fields](input);
    const changes: BrandChanges = {};
    if (patch.name !== undefined) changes.name = trimmedName(patch.name);
    if (patch.description !== undefined) changes.description = patch.description;
    if (patch.website !== undefined) changes.website = normalizeWebsite(patch.website);
    if (patch.logoUrl !== undefined) changes.logoUrl = normalizeLogoUrl(patch.logoUrl, this.logoHosts);
    if (patch.sortOrder !== undefined) changes.sortOrder = patch.sortOrder;
    if (patch.isEnabled !== undefined) changes.isEnabled = patch.isEnabled;
    return inTransaction(ctx, async (tx) => {
      await this.lockForWrite(tx, id, ifMatch);
      const brand = await updateBrand(tx, id, changes);
      await recordActivity(tx, 'brand', id, 'updated');
      return versioned(brand!);
    });
  }

  /** deleteBrand: soft delete, refused with brand_has_dependents while live categories or products exist. */
  async softDelete(ctx: Ctx, id: number, ifMatch?: string): Promise<Versioned<{ id: number }>> {
    requirePermission(ctx, 'brands:delete');
    return inTransaction(ctx, async (tx) => {
      await this.lockForWrite(tx, id, ifMatch);
      for (const hasDependents of this.dependentChecks) {
        if (await hasDependents(tx, id)) {
          throw new DomainError('brand_has_dependents', 'The brand still has live categories or products');
        }
      }
      await softDeleteBrand(tx, id);
      await recordActivity(tx, 'brand', id, 'deleted');
      const data = { id };
      return { data, etag: etagOf(data) };
    });
  }

  /** Locks the live brand row for this transaction and checks If-Match against what it holds now. */
  private async lockForWrite(tx: Ctx, id: number, ifMatch: string | undefined): Promise<BrandView> {
    const current = await lockLiveBrand(tx, id);
    if (!current) throw notFound('Brand');
    checkIfMatch(ifMatch, current);
    return current;
  }
}
