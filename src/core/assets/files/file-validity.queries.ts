import type { TeamScope, UnitOfWork } from '../../platform/ctx.ts';
import { int, nullableFloat, nullableText } from '../../platform/row-checks.ts';
import { intArray, queryOne, queryRows } from '../../platform/sql.ts';
import { isoSql } from '../../platform/timestamps.ts';

/*
 * Statements on library files' validity periods (library_files, docs/library.md "Validity"): the
 * edits of one file's period and the daily check's step. Every statement names the team but the
 * daily check's, which runs across teams.
 */

/** A file's validity status: 0 valid, 1 not started, 2 expired. */
export type ValidityStatusCode = 0 | 1 | 2;

/** A file's validity period as stored, with its status. */
export interface PeriodRow {
  id: number;
  startTime: string | null;
  endTime: string | null;
  /** The end in epoch ms (null: permanent). */
  endMs: number | null;
  status: ValidityStatusCode;
}

/** The status of a period at a time given as one `?` parameter (SQL): one expression for the edit and the daily check. */
const STATUS_SQL = `(case when validity_start > ?::timestamptz then 1 when validity_end <= ?::timestamptz then 2 else 0 end)::smallint`;

const PERIOD_COLUMNS = `id, ${isoSql('validity_start')} as "startTime", ${isoSql('validity_end')} as "endTime",
  (extract(epoch from validity_end) * 1000)::float8 as "endMs", validity_status as status`;

function validityStatus(value: unknown, column: string): ValidityStatusCode {
  const status = int(value, column);
  if (status !== 0 && status !== 1 && status !== 2) throw new Error(`column ${column}: expected a validity status 0, 1 or 2, got ${status}`);
  return status;
}

function periodOf(row: Record<string, unknown>): PeriodRow {
  return {
    id: int(row.id, 'id'),
    startTime: nullableText(row.startTime, 'startTime'),
    endTime: nullableText(row.endTime, 'endTime'),
    endMs: nullableFloat(row.endMs, 'endMs'),
    status: validityStatus(row.status, 'status'),
  };
}

/** Locks a live file of the team (`for update`) and reads its period; null when it is not the team's live file. */
export async function lockFilePeriod(tx: TeamScope, fileId: number): Promise<PeriodRow | null> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `select ${PERIOD_COLUMNS} from library_files where id = ? and team_id = ? and deleted_at is null for update`,
    [fileId, tx.teamId],
  );
  return row && periodOf(row);
}

/** Replaces a file's validity period (RFC 3339 bounds, null: open); its status is set by `refreshValidityStatus`. */
export async function setFilePeriod(tx: TeamScope, fileId: number, start: string | null, end: string | null): Promise<void> {
  await queryRows(
    tx,
    'update library_files set validity_start = ?::timestamptz, validity_end = ?::timestamptz, updated_at = now() where id = ? and team_id = ?',
    [start, end, fileId, tx.teamId],
  );
}

/** Sets a file's validity status as of `at` (RFC 3339) and reads its period. */
export async function refreshValidityStatus(tx: TeamScope, fileId: number, at: string): Promise<PeriodRow> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    `update library_files set validity_status = ${STATUS_SQL} where id = ? and team_id = ? returning ${PERIOD_COLUMNS}`,
    [at, at, fileId, tx.teamId],
  );
  return periodOf(row!);
}

/** The periods of the team's live files among `ids` (in no particular order). */
export async function filePeriods(scope: TeamScope, ids: readonly number[]): Promise<PeriodRow[]> {
  const rows = await queryRows<Record<string, unknown>>(
    scope,
    `select ${PERIOD_COLUMNS} from library_files where team_id = ? and deleted_at is null and id = any(?::int[])`,
    [scope.teamId, intArray(ids)],
  );
  return rows.map(periodOf);
}

/**
 * The daily check's step, across teams: up to `batchSize` live files with a period whose status as
 * of `at` (RFC 3339) differs from the stored one get the new status; their periods, with their
 * teams. Rows another transaction holds are skipped (`skip locked`), left for the next run.
 */
export async function moveDueValidityStatuses(tx: UnitOfWork, at: string, batchSize: number): Promise<(PeriodRow & { teamId: number })[]> {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    `update library_files f set validity_status = ${STATUS_SQL}, updated_at = now()
      where f.id in (select id from library_files
                      where deleted_at is null and (validity_start is not null or validity_end is not null)
                        and validity_status <> ${STATUS_SQL}
                      order by id limit ? for update skip locked)
     returning f.team_id as "teamId", ${PERIOD_COLUMNS}`,
    [at, at, at, at, batchSize],
  );
  return rows.map((row) => ({ teamId: int(row.teamId, 'teamId'), ...periodOf(row) }));
}
