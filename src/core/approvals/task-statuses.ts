/**
 * The statuses of a task still under review (docs/approvals.md): decisions, resubmissions,
 * cancellation and timers apply to these only; APPROVED and CANCELED are final.
 */
export const ACTIVE_TASK_STATUSES: readonly string[] = ['PENDING', 'PROCESSING', 'REJECTED'];

/** ACTIVE_TASK_STATUSES as an SQL list, for `status in ${ACTIVE_TASK_STATUSES_SQL}`. */
export const ACTIVE_TASK_STATUSES_SQL = `(${ACTIVE_TASK_STATUSES.map((status) => `'${status}'`).join(', ')})`;
