import type { Ctx } from '../../platform/ctx.ts';
import { invalid } from '../../platform/errors.ts';
import { isLiveCategory } from '../categories/categories.queries.ts';
import type { ResolvedTemplate } from './template.schemas.ts';
import { templateForCategory } from './template-bindings.queries.ts';
import { libraryDefaultToPin, liveTemplateToPin } from './templates.queries.ts';

export interface TemplateResolutionInput {
  templateId?: string | null;
  brandId?: number | null;
  categoryId?: number | null;
}

/**
 * Spec 4.5 "Template resolution at creation": an explicit templateId wins (it must be a live
 * template of the library); otherwise, with a category: the binding of the category or its
 * nearest bound ancestor, then the binding of the category's brand, then the library default;
 * without a category only the library default counts, even when brandId is given. Null when
 * nothing resolves. `enabled` plays no part: the spec ties resolution to bindings and liveness only.
 */
export async function resolveTemplateForProduct(ctx: Ctx, input: TemplateResolutionInput): Promise<ResolvedTemplate | null> {
  if (input.templateId !== undefined && input.templateId !== null) {
    const explicit = await liveTemplateToPin(ctx, input.templateId);
    if (!explicit) throw invalid('templateId', 'is not a live template of this library');
    return explicit;
  }
  if (input.categoryId !== undefined && input.categoryId !== null) return resolveByCategory(ctx, input.categoryId);
  return libraryDefaultToPin(ctx);
}

/** The category chain (nearest first), then the brand, then the default (one query ranks them). */
async function resolveByCategory(ctx: Ctx, categoryId: number): Promise<ResolvedTemplate | null> {
  if (!(await isLiveCategory(ctx, categoryId))) throw invalid('categoryId', 'is not a live category of this library');
  return templateForCategory(ctx, categoryId);
}
