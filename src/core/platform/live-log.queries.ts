import type { UnitOfWork } from './ctx.ts';
import { intArray, nullableIntArray, queryRows, textArray } from './sql.ts';

/*
 * The live log's write (live_events, docs/graphql.md "Live updates"): writers of every room record
 * rows in their change's transaction, without a position; the live room (src/core/live/) positions,
 * relays and reads them.
 */

/** A live row as a writer records it. */
export interface LiveRowInput {
  teamId: number;
  /** `library`, `approval` or `product`. */
  stream: string;
  eventType: string;
  /** The file, task or product the row is about. */
  subjectId: string;
  /** Library: every folder on the affected files' paths (a folder subscription matches its subtree). */
  folderIds: number[];
  brandId: number | null;
  categoryId: number | null;
  /** Product: neither before nor after the change was the product published (roles that see published products only skip it). */
  draftsOnly: boolean;
  /** JSON text. */
  body: string;
}

/** Writes live rows in the caller's transaction, in input order (their ids order them within one relay step). */
export async function insertLiveRows(tx: UnitOfWork, rows: readonly LiveRowInput[]): Promise<void> {
  if (rows.length === 0) return;
  await queryRows(
    tx,
    `insert into live_events (team_id, stream, event_type, subject_id, folder_ids, brand_id, category_id, drafts_only, body)
     select i.team_id, i.stream, i.event_type, i.subject_id, coalesce(i.folder_ids::int[], '{}'), i.brand_id, i.category_id, i.drafts_only, i.body::json
       from unnest(?::int[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::int[], ?::boolean[], ?::text[]) with ordinality
         as i(team_id, stream, event_type, subject_id, folder_ids, brand_id, category_id, drafts_only, body, ord)
      order by i.ord`,
    [
      intArray(rows.map((r) => r.teamId)),
      textArray(rows.map((r) => r.stream)),
      textArray(rows.map((r) => r.eventType)),
      textArray(rows.map((r) => r.subjectId)),
      textArray(rows.map((r) => `{${r.folderIds.join(',')}}`)),
      nullableIntArray(rows.map((r) => r.brandId)),
      nullableIntArray(rows.map((r) => r.categoryId)),
      `{${rows.map((r) => (r.draftsOnly ? 't' : 'f')).join(',')}}`,
      textArray(rows.map((r) => r.body)),
    ],
  );
}
