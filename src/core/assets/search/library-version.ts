/**
 * The team's library version lives with its statement in library-versions.queries.ts; this module
 * keeps the name where the files area imports it from.
 */
export { LIBRARY_VERSION_SQL, libraryVersionOf } from './library-versions.queries.ts';
