import type { ArgBuilder, OutputRef } from '@pothos/core';
import type { Versioned } from '../core/platform/etag.ts';
import type { CreateOutcome } from '../core/platform/idempotency.ts';
import type { Page } from '../core/platform/pagination.ts';
import { withoutNulls } from './args.ts';
import { builder, PaginationRef } from './builder.ts';
import type { GqlContext } from './context.ts';
import { PAGE_ITEMS_COST, pageCost } from './costs.ts';

/*
 * The shapes the resources' types files share: a page of items and the query field answering
 * one, an item with its ETag, what a deletion answers, the createdAt/updatedAt pair and the
 * paging, ifMatch and idempotencyKey arguments. Each is written here once; the types files pass
 * their names and their own wording.
 */

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
type ImplementedRef<Shape> = PothosSchemaTypes.ObjectRef<Types, Shape>;
/** Anything with the builder's `t.arg`: the `t` of query and mutation fields. */
type WithArgs = { arg: ArgBuilder<Types> };
type QueryFieldBuilder = PothosSchemaTypes.QueryFieldBuilder<Types, Types['Root']>;

/** The `t` of an object type's fields, for helpers that add fields to types of a given shape. */
export type ObjectFieldBuilder<Shape> = PothosSchemaTypes.ObjectFieldBuilder<Types, Shape>;

/** A create's outcome as an ETag result; a create that gave no ETag answers an empty one. */
export function versionedOf<Item>(outcome: CreateOutcome<Item>): Versioned<Item> {
  return { data: outcome.body, etag: outcome.etag ?? '' };
}

// ---- fields and arguments

/** Timestamps of brands and categories: six fractional digits, with an example. */
export const RFC3339_EXAMPLE = 'RFC 3339 in UTC with six fractional digits, e.g. `2026-11-22T15:03:19.632639Z`.';
/** Timestamps elsewhere. */
export const RFC3339_MICROS = 'RFC 3339, UTC, microseconds.';

/** `createdAt` and `updatedAt`, both non-null strings with one description. */
export function timestampFields<Shape extends { createdAt: string; updatedAt: string }>(t: ObjectFieldBuilder<Shape>, description: string) {
  return {
    createdAt: t.string({ description, resolve: (parent) => parent.createdAt }),
    updatedAt: t.string({ description, resolve: (parent) => parent.updatedAt }),
  };
}

/** The `page` and `pageSize` arguments of an ordinary page (spec 2.1). */
export function pageArgs(t: WithArgs, page = 'Page from 1 (default 1).') {
  return {
    page: t.arg.int({ description: page }),
    pageSize: t.arg.int({ description: 'Items per page (default 20, at most 100).' }),
  };
}

/** The `page` and `pageSize` arguments as the core's page query: the ones not given are left out. */
export function pageQuery(args: { page?: number | null; pageSize?: number | null }) {
  return withoutNulls({ page: args.page, pageSize: args.pageSize });
}

/**
 * A query field answering one ordinary page of a list that takes no other argument: the paging
 * arguments, counted pageSize times, and the ones given passed to `list` as the core's page query.
 */
export function pageField<Item>(
  t: QueryFieldBuilder,
  type: ImplementedRef<Page<Item>>,
  description: string,
  list: (gql: GqlContext, query: ReturnType<typeof pageQuery>) => Promise<Page<Item>>,
) {
  return t.field({ type, description, args: pageArgs(t), complexity: pageCost, resolve: (_root, args, gql) => list(gql, pageQuery(args)) });
}

/** `ifMatch` of a change: the ETag last read; the change is refused (precondition_failed) when it is stale. */
export function ifMatchArg(t: WithArgs, description = 'The ETag last read; refused if stale.') {
  return t.arg.string({ description });
}

/** `idempotencyKey` of a create: a repeat with the same key and input answers the first result. */
export function idempotencyKeyArg(t: WithArgs, description = 'Up to 255 characters; a replay within 24 hours returns the first result.') {
  return t.arg.string({ description });
}

// ---- object types

/** The pagination description of pages that spell out the paging arguments' defaults. */
export const ORDINARY_PAGING_EXPLAINED = 'Ordinary paging (page from 1; pageSize default 20, at most 100).';

/**
 * `<name> { items: [Item], pagination: Pagination }`, for a core `Page`. `items` is the plural
 * noun of the items field's description ("The brands of this page.").
 */
export function pageType<Item>(name: string, itemRef: OutputRef<Item>, text: { description: string; items: string; pagination?: string }) {
  return builder.objectRef<Page<Item>>(name).implement({
    description: text.description,
    fields: (t) => ({
      items: t.field({ type: [itemRef], description: `The ${text.items} of this page.`, complexity: PAGE_ITEMS_COST, resolve: (page) => page.items }),
      pagination: t.field({ type: PaginationRef, description: text.pagination ?? 'Ordinary paging of the list.', resolve: (page) => page.pagination }),
    }),
  });
}

interface EtagResultText {
  /** The item's field, also the noun of the descriptions. */
  field: string;
  /** The etag field's description, where it is not the usual one. */
  etag?: string;
}

/**
 * `<name> { <field>: Item, etag: String }`: an item with the strong ETag to send as ifMatch on the
 * next change, for a core `Versioned` answer.
 */
export function etagResultType<Item>(name: string, itemRef: OutputRef<Item>, text: EtagResultText): ImplementedRef<Versioned<Item>>;
// the implementation is not generic: TypeScript cannot resolve Pothos' resolver type for a generic Item
export function etagResultType(name: string, itemRef: OutputRef<unknown>, text: EtagResultText) {
  return builder.objectRef<Versioned<unknown>>(name).implement({
    description: `A ${text.field} with the strong ETag to send as ifMatch on the next change.`,
    fields: (t) => ({
      [text.field]: t.field({ type: itemRef, description: `The ${text.field}.`, resolve: (result) => result.data }),
      etag: t.exposeString('etag', { description: text.etag ?? 'Strong ETag of this version; send it as ifMatch on the next change.' }),
    }),
  });
}

interface DeletionText {
  /** The deleted item, in the id's description. */
  noun: string;
  description: string;
}

/** `<name> { id: Int | String, etag: String }`: what a deletion answers, for the core's `Versioned<{ id }>`. */
export function deletionType(name: string, idType: 'Int', text: DeletionText): ImplementedRef<Versioned<{ id: number }>>;
export function deletionType(name: string, idType: 'String', text: DeletionText): ImplementedRef<Versioned<{ id: string }>>;
export function deletionType(name: string, idType: 'Int' | 'String', text: DeletionText) {
  return builder.objectRef<Versioned<{ id: number | string }>>(name).implement({
    description: text.description,
    fields: (t) => ({
      id: t.field({ type: idType, description: `The deleted ${text.noun}'s id.`, resolve: (deleted) => deleted.data.id }),
      etag: t.exposeString('etag', { description: 'The ETag of the version that was deleted.' }),
    }),
  });
}
