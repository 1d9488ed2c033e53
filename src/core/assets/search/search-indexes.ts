const index = (name: string, body: string) => ({
  name,
  expression: `create index "${name}" on "library_files" ${body} where "deleted_at" is null`,
});

/**
 * Indexes of asset search (spec 4.6) on library_files, all partial on live rows. Each one serves a
 * filter and/or a sort; docs/search.md gives the EXPLAIN ANALYZE measurements behind the choice.
 * DEEP keywords have their own narrow table and trigram index (LibrarySearchText).
 */
export const SEARCH_INDEXES = [
  // "is this file id a live file of the team", answered from the index alone: the counts of searches
  // whose filters are id sets (tags, DEEP keywords with other filters) probe it instead of the heap
  index('library_files_live_id', '("team_id", "id")'),
  // keywords DEFAULT (name contains) and search-share `keyword`
  index('library_files_name_trgm', 'using gin (lower("name") gin_trgm_ops)'),
  // keywords PRECISE (exact name) and sort NAME; PRECISE also matches the name without its extension
  index('library_files_live_name', '("team_id", lower("name"), "id")'),
  index('library_files_live_stem', `("team_id", lower(regexp_replace("name", '\\.[^.]*$', '')))`),
  // sort CREATE_TIME (the default) and UPDATE_TIME, update-time range. The creation-time index
  // carries the tag ids, so a tags search in creation order tests them from the index alone
  // (an index-only walk: 0.15 µs a row against 1 µs reading each file, docs/search.md)
  index('library_files_live_created', '("team_id", "created_at", "id") include ("tag_ids")'),
  index('library_files_live_updated', '("team_id", "updated_at", "id")'),
  // size range + sort SIZE; extensions + size range: counts by index only, and each extension's
  // branch of a SIZE-sorted page reads it in order (search-pages.queries.ts)
  index('library_files_live_size', '("team_id", "byte_size", "id")'),
  index('library_files_live_extension_size', '("team_id", "extension", "byte_size", "id")'),
  // duration range + sort DURATION, rating filter + sort SCORE (missing values sort as the lowest)
  index('library_files_live_duration', '("team_id", "duration_ms" nulls first, "id")'),
  index('library_files_live_score', '("team_id", "score" nulls first, "id")'),
  // width/height bounds
  index('library_files_live_width_height', '("team_id", "width", "height")'),
  // tags, any (&&) or all (@>) of them: one condition on the file's own tag ids (docs/search.md)
  index('library_files_live_tag_ids', 'using gin ("tag_ids")'),
  // createUsers, currentUserId ownership, folder subtree, colour (object) matches
  index('library_files_live_create_user', '("team_id", "create_user_id")'),
  index('library_files_live_owner', '("team_id", "owner_id")'),
  index('library_files_live_folder', '("team_id", "folder_id")'),
  // a small parentId subtree in creation order: one ordered scan per folder (search-pages.queries.ts)
  index('library_files_live_folder_created', '("team_id", "folder_id", "created_at", "id")'),
  index('library_files_live_object', '("team_id", "object_id")'),
];
