import { type Static, Type } from 'typebox';
import { requirePermission } from '../../access/roles.ts';
import type { Ctx, UnitOfWork } from '../../platform/ctx.ts';
import { invalid, notFound } from '../../platform/errors.ts';
import { timestampInput } from '../../platform/timestamp-schema.ts';
import { inTransaction } from '../../platform/tx.ts';
import { compileInput } from '../../platform/validate.ts';
import { filePeriods, lockFilePeriod, moveDueValidityStatuses, type PeriodRow, refreshValidityStatus, setFilePeriod } from './file-validity.queries.ts';
import { libraryEvents } from './library-events.ts';

/** A file's validity period: both bounds optional; the call replaces the whole period. */
export const FileValidityInput = Type.Object(
  {
    startTime: Type.Optional(
      Type.Union([timestampInput('RFC 3339: valid from then.'), Type.Null()], {
        description: 'RFC 3339: valid from then; null or omitted: valid from the start.',
      }),
    ),
    endTime: Type.Optional(
      Type.Union([timestampInput('RFC 3339: expires then.'), Type.Null()], {
        description: 'RFC 3339: expires then; null or omitted: permanent. After startTime.',
      }),
    ),
  },
  { $id: 'FileValidityInput', additionalProperties: false },
);
export type FileValidityInput = Static<typeof FileValidityInput>;

/** Validity statuses (docs/library.md "Validity"): the code and the name events and GraphQL carry. */
export const VALIDITY_STATUSES = { 0: 'VALID', 1: 'NOT_STARTED', 2: 'EXPIRED' } as const;
export type ValidityStatus = keyof typeof VALIDITY_STATUSES;

/** A file's validity as GraphQL and the VALIDITY event (spec 6.2) show it. */
export interface FileValidityView {
  materialId: number;
  validityStatus: ValidityStatus;
  validityStatusName: (typeof VALIDITY_STATUSES)[ValidityStatus];
  /** Whole days until the end, rounded up; 0 once expired; null when permanent. */
  daysToExpire: number | null;
  /** RFC 3339 or null. */
  startTime: string | null;
  endTime: string | null;
  isPermanent: boolean;
}

const checkInput = compileInput(FileValidityInput);

function viewOf(row: PeriodRow, nowMs: number): FileValidityView {
  const status: ValidityStatus = row.status;
  return {
    materialId: row.id,
    validityStatus: status,
    validityStatusName: VALIDITY_STATUSES[status],
    daysToExpire: row.endMs === null ? null : Math.max(0, Math.ceil((row.endMs - nowMs) / 86_400_000)),
    startTime: row.startTime,
    endTime: row.endTime,
    isPermanent: row.endTime === null,
  };
}

/** What the daily check does: files whose validity status changed since the last check. */
export interface ValidityCheckResult {
  changed: number;
}

/**
 * File validity periods (docs/library.md "Validity"). Setting a period needs
 * library:edit and writes a VALIDITY event when the period or the status changes; a daily job
 * (`validity-check` on the maintenance queue) moves files whose period started or ended and
 * writes their events, acting as the system for each team.
 */
export class FileValidityService {
  /** Replaces a live file's validity period; 422 when the end is not after the start. */
  async set(ctx: Ctx, fileId: number, input: unknown, nowMs = Date.now()): Promise<FileValidityView> {
    requirePermission(ctx, 'library:edit');
    const body = checkInput(input ?? {});
    const start = body.startTime ?? null;
    const end = body.endTime ?? null;
    if (start !== null && end !== null && Date.parse(end) <= Date.parse(start)) throw invalid('endTime', 'must be after startTime');
    return inTransaction(ctx, async (tx) => {
      const before = await lockFilePeriod(tx, fileId);
      if (!before) throw notFound('File');
      await setFilePeriod(tx, fileId, start, end);
      const row = await refreshValidityStatus(tx, fileId, new Date(nowMs).toISOString());
      const view = viewOf(row, nowMs);
      if (before.startTime !== row.startTime || before.endTime !== row.endTime || before.status !== row.status) await libraryEvents.validityChanged(tx, view);
      return view;
    });
  }

  /** The validity of live files of the caller's team among `ids` (GraphQL loader); absent ids are not the team's live files. */
  async forFiles(ctx: Ctx, ids: readonly number[], nowMs = Date.now()): Promise<FileValidityView[]> {
    const rows = await filePeriods(ctx, ids);
    return rows.map((row) => viewOf(row, nowMs));
  }

  /**
   * The daily check: every live file with a period whose status at `nowMs` differs from the stored
   * one gets the new status and a VALIDITY event, in batches of `batchSize` files per transaction
   * (a crash leaves the rest for the next run; nothing is applied twice).
   */
  async checkAll(op: UnitOfWork, nowMs = Date.now(), batchSize = 500): Promise<ValidityCheckResult> {
    const at = new Date(nowMs).toISOString();
    let changed = 0;
    for (;;) {
      const batch = await inTransaction(op, async (tx) => {
        const rows = await moveDueValidityStatuses(tx, at, batchSize);
        for (const row of rows) {
          const scope = { em: tx.em, teamId: row.teamId, actor: { kind: 'system' as const, teamId: row.teamId, job: 'validity-check' } };
          await libraryEvents.validityChanged(scope, viewOf(row, nowMs));
        }
        return rows.length;
      });
      changed += batch;
      if (batch < batchSize) return { changed };
    }
  }
}
