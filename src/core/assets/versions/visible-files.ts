/**
 * The rule by which a referenced file is shown (docs/library.md "Version lines") and the read
 * that applies it live in version-lines.queries.ts; this module keeps their names where the
 * catalogue and the library's files import them from.
 */
export { VISIBLE_FROM, VISIBLE_ID, VISIBLE_WHERE, visibleFileIds } from './version-lines.queries.ts';
