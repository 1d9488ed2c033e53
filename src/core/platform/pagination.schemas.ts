import { Type } from 'typebox';
import { DEFAULT_PAGE_SIZE } from './pagination.ts';

/** Ordinary paging (spec 2.1, 4.1): page >= 1, pageSize positive, values above 100 capped (pagination.ts normalizePage). */
export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, default: 1 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, default: DEFAULT_PAGE_SIZE })),
});
