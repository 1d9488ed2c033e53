import type { Core } from '../core/core.ts';
import type { LiveHub } from '../core/live/live-hub.ts';
import type { LiveSubscription } from '../core/live/live-stream.ts';
import type { Ctx } from '../core/platform/ctx.ts';

/** Per-request GraphQL context: the core and the authenticated caller's unit of work. */
export interface GqlContext {
  core: Core;
  ctx: Ctx;
  /** Set on a live update stream (rest/graphql-stream.ts): the process's hub and the request's Last-Event-ID. */
  live?: { hub: LiveHub; lastEventId: string | null; stream?: LiveSubscription };
}
