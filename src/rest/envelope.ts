import { type TSchema, Type } from 'typebox';
import type { FieldIssue } from '../core/platform/errors.ts';
import type { Pagination } from '../core/platform/pagination.ts';

/** Spec 2.1: the Area A envelope of every JSON response. */
export interface Envelope<T> {
  success: boolean;
  data: T | null;
  code: string | null;
  message: string | null;
  requestId: string;
  pagination?: Pagination;
  details?: FieldIssue[];
}

export function ok<T>(requestId: string, data: T, pagination?: Pagination): Envelope<T> {
  return pagination ? { success: true, data, code: null, message: null, requestId, pagination } : { success: true, data, code: null, message: null, requestId };
}

/** The envelope of one ordinary page of a list: its items as data, and its pagination. */
export function okPage<T>(requestId: string, page: { items: T[]; pagination: Pagination }): Envelope<T[]> {
  return ok(requestId, page.items, page.pagination);
}

export function failure(requestId: string, code: string, message: string, details?: FieldIssue[]): Envelope<never> {
  return details && details.length > 0
    ? { success: false, data: null, code, message, requestId, details }
    : { success: false, data: null, code, message, requestId };
}

/** Spec 2.1: the pagination object of an ordinary page. */
export const PaginationSchema = Type.Object({
  page: Type.Integer({ minimum: 1 }),
  pageSize: Type.Integer({ minimum: 1, maximum: 100 }),
  totalCount: Type.Integer({ minimum: 0 }),
  totalPages: Type.Integer({ minimum: 0 }),
});

/** Response schema of a successful single-resource operation. */
export function okSchema(data: TSchema) {
  return Type.Object({
    success: Type.Literal(true),
    data,
    code: Type.Null(),
    message: Type.Null(),
    requestId: Type.String(),
  });
}

/** Response schema of a successful ordinary list. */
export function listSchema(item: TSchema) {
  return Type.Object({
    success: Type.Literal(true),
    data: Type.Array(item),
    code: Type.Null(),
    message: Type.Null(),
    requestId: Type.String(),
    pagination: PaginationSchema,
  });
}

/** The failure envelope (spec 7.1). */
export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    data: Type.Null(),
    code: Type.String({ description: 'Stable error code; handle this and the HTTP status, not the message.' }),
    message: Type.String(),
    requestId: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    mutationOutcome: Type.Optional(Type.Ref('MutationOutcome')),
  },
  { $id: 'ErrorEnvelope' },
);

/** Spec 7.1 `mutationOutcome`, carried by `409 mutation_response_unavailable` (docs/products.md). */
export const MutationOutcomeSchema = Type.Object(
  {
    resource: Type.String({ description: 'The kind of resource committed, e.g. `download_record`.' }),
    id: Type.Integer({ minimum: 1, description: 'Its id.' }),
    replayed: Type.Boolean({ description: 'true when this request replayed an earlier commit (same Idempotency-Key) rather than committing now.' }),
    retry: Type.Object(
      {
        method: Type.String({ description: 'HTTP method of the request to repeat.' }),
        path: Type.String({ description: 'Path of the request to repeat.' }),
        idempotencyKey: Type.Union([Type.String(), Type.Null()], {
          description:
            'Send this Idempotency-Key again to get the same result without a second record; null: the first request had none, so repeating it records again.',
        }),
      },
      { description: 'How to try again without creating the resource twice.' },
    ),
    lookup: Type.String({ description: 'Path where the committed resource can be read.' }),
  },
  { $id: 'MutationOutcome', description: 'What a mutation committed although its response could not be delivered, and how to get it again.' },
);
