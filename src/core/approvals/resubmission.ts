import { invalid } from '../platform/errors.ts';

/** One asset of a resubmission: the new bytes' place among the task's assets, when the caller names it. */
export interface ResubmittedPosition {
  /** 0-based index into the task's assets (createApproval's `assets` order); absent: by order. */
  position?: number | null;
}

/**
 * Which of the task's assets each resubmitted asset replaces.
 *
 * A resubmission either carries every asset of the task, in the task's order, or names the
 * position of each asset it replaces (the others keep their current version). Anything in
 * between is ambiguous (one file for a two-asset task: which one?) and refused, so a submitter
 * never replaces an asset they did not mean to.
 *
 * `taskAssetCount` may be unknown (null) before the task is read: then only the shape is checked.
 */
export function planResubmission(items: ResubmittedPosition[], taskAssetCount: number | null): number[] {
  if (items.length === 0) throw invalid('assets', 'must hold at least one asset', 'assets_empty');
  const named = items.filter((item) => item.position !== undefined && item.position !== null).length;
  if (named === 0) {
    if (taskAssetCount !== null && items.length !== taskAssetCount) {
      throw invalid(
        'assets',
        `the task has ${taskAssetCount} asset(s) and ${items.length} were sent: send all ${taskAssetCount} in the task's order, or give each asset the position (0-${taskAssetCount - 1}) it replaces`,
        'resubmit_count_mismatch',
      );
    }
    return items.map((_, index) => index);
  }
  const seen = new Set<number>();
  return items.map((item, index) => {
    const position = item.position;
    if (position === undefined || position === null) {
      throw invalid(`assets[${index}].position`, 'is missing: name the position of every asset once one is named', 'resubmit_positions_mixed');
    }
    if (!Number.isInteger(position) || position < 0 || (taskAssetCount !== null && position >= taskAssetCount)) {
      const range = taskAssetCount === null ? 'a 0-based index' : `0-${taskAssetCount - 1}`;
      throw invalid(`assets[${index}].position`, `must be one of the task's asset positions (${range})`, 'resubmit_position_out_of_range');
    }
    if (seen.has(position)) throw invalid(`assets[${index}].position`, `position ${position} is named twice`, 'resubmit_position_duplicate');
    seen.add(position);
    return position;
  });
}
