import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import type { Core } from '../core/core.ts';

/**
 * What the app needs of one REST resource: its route plugin and the named schemas its routes
 * reference (registered once with `addSchema`, so they reach the OpenAPI document's components).
 * Each routes file exports one; app.ts lists it once under its area.
 */
export interface RestResource {
  routes: (fastify: FastifyInstance, options: { core: Core }) => Promise<void>;
  schemas: readonly TSchema[];
}
