import type { Core } from '../core/core.ts';
import type { Ctx } from '../core/platform/ctx.ts';

/** Per-request GraphQL context: the core and the authenticated caller's unit of work. */
export interface GqlContext {
  core: Core;
  ctx: Ctx;
}
