/**
 * Triggers that keep search data in step with the library, whoever writes it (docs/search.md).
 * Declared on the entities as raw DDL so migration diffs create them once and never drop them;
 * their functions (library_files_refresh_tag_names, library_version_bump, library_search_text_sync,
 * library_tag_postings_sync, library_file_names_sync) are created by the search migrations.
 */

/**
 * Every committed change to a team's files, tags, folders, folder members, palettes or custom
 * field values raises its library version once per transaction, at commit (deferred, so the row
 * lock on the version lives only during commit). Search keys its memo of exact totals by that version.
 */
function versionBump(table: string) {
  return {
    name: `${table}_version_bump`,
    timing: 'after' as const,
    events: ['insert' as const, 'update' as const, 'delete' as const],
    expression: `create constraint trigger "${table}_version_bump" after insert or update or delete on "${table}" deferrable initially deferred for each row execute function library_version_bump()`,
  };
}

/**
 * library_search_texts follows every change of a file's searchable fields, and library_tag_postings
 * every change of its tags; a deleted file loses its rows in both.
 */
export const LIBRARY_FILES_TRIGGERS = [
  versionBump('library_files'),
  {
    name: 'library_files_search_text_sync',
    timing: 'after' as const,
    events: ['insert' as const, 'update' as const],
    expression:
      'create trigger "library_files_search_text_sync" after insert or update of "name", "description", "tag_names", "ai_tags", "ai_title", "ai_description", "ai_detailed_description", "deleted_at", "team_id", "created_at" on "library_files" for each row execute function library_search_text_sync()',
  },
  // library_file_names follows the file's name and deletion (asset lookup)
  {
    name: 'library_files_name_sync',
    timing: 'after' as const,
    events: ['insert' as const, 'update' as const],
    expression:
      'create trigger "library_files_name_sync" after insert or update of "name", "deleted_at", "team_id" on "library_files" for each row execute function library_file_names_sync()',
  },
  // library_tag_postings follows the file's tag ids, creation time and deletion
  {
    name: 'library_files_tag_postings_sync',
    timing: 'after' as const,
    events: ['insert' as const, 'update' as const],
    expression:
      'create trigger "library_files_tag_postings_sync" after insert or update of "tag_ids", "deleted_at", "team_id", "created_at" on "library_files" for each row execute function library_tag_postings_sync()',
  },
];
export const LIBRARY_FOLDERS_TRIGGERS = [versionBump('library_folders')];
export const LIBRARY_FOLDER_MEMBERS_TRIGGERS = [versionBump('library_folder_members')];
export const STORED_OBJECT_COLOURS_TRIGGERS = [versionBump('stored_object_colours')];
/** A file's custom field values decide search's customFieldTemplateIds / customFieldId (docs/search.md). */
export const LIBRARY_FILE_CUSTOM_VALUES_TRIGGERS = [versionBump('library_file_custom_values')];

/** library_files.tag_names follows the file's tags, so the generated search_text (DEEP keywords) does too. */
export const LIBRARY_FILE_TAGS_TRIGGERS = [
  versionBump('library_file_tags'),
  {
    name: 'library_file_tags_inserted',
    timing: 'after' as const,
    events: ['insert' as const],
    forEach: 'statement' as const,
    expression:
      'create trigger "library_file_tags_inserted" after insert on "library_file_tags" referencing new table as changed_file_tags for each statement execute function library_files_refresh_tag_names()',
  },
  {
    name: 'library_file_tags_deleted',
    timing: 'after' as const,
    events: ['delete' as const],
    forEach: 'statement' as const,
    expression:
      'create trigger "library_file_tags_deleted" after delete on "library_file_tags" referencing old table as changed_file_tags for each statement execute function library_files_refresh_tag_names()',
  },
];
