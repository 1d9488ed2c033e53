import { invalid } from './errors.ts';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

export interface PageRequest {
  page: number;
  pageSize: number;
}

export interface Pagination {
  page: number;
  pageSize: number;
  totalCount: number;
  totalPages: number;
}

export interface Page<T> {
  items: T[];
  pagination: Pagination;
}

/** Applies defaults and the cap; rejects what no caller should send (adapters that bypass schemas, e.g. GraphQL). */
export function normalizePage(input: { page?: number | null; pageSize?: number | null }): PageRequest {
  if (input.page != null && !(Number.isInteger(input.page) && input.page >= 1)) throw invalid('page', 'must be an integer >= 1');
  if (input.pageSize != null && !(Number.isInteger(input.pageSize) && input.pageSize >= 1)) {
    throw invalid('pageSize', 'must be a positive integer');
  }
  return {
    page: input.page ?? 1,
    pageSize: Math.min(input.pageSize ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
  };
}

export function paginationOf(request: PageRequest, totalCount: number): Pagination {
  return {
    page: request.page,
    pageSize: request.pageSize,
    totalCount,
    totalPages: Math.ceil(totalCount / request.pageSize),
  };
}
