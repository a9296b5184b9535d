/**
 * Counts of watches by status kept from reports that may arrive late, twice or out of order (the
 * Workers gauge, `src/edge/watch-count-object.ts`). A watch's status only moves forward — pending,
 * active, then ended or cancelled; a pending watch may be discarded (status none) — so a report
 * that would move a watch back is stale and changes nothing.
 */
import type { WatchStatus } from './model.ts';

export type WatchCounts = Record<WatchStatus, number>;

export const WATCH_STATUSES = [
  'pending',
  'active',
  'ended',
  'cancelled',
] as const satisfies readonly WatchStatus[];

const STAGE: Record<WatchStatus, number> = { pending: 0, active: 1, ended: 2, cancelled: 2 };

export const noWatches = (): WatchCounts => ({ pending: 0, active: 0, ended: 0, cancelled: 0 });

/**
 * The counts after a report that a watch counted as `was` (undefined: not counted) now has `status`
 * (null: discarded); null when the report changes nothing.
 */
export function countedReport(
  counts: WatchCounts,
  was: WatchStatus | undefined,
  status: WatchStatus | null,
): WatchCounts | null {
  if (was === status) return null;
  if (status === null) return was === 'pending' ? { ...counts, pending: counts.pending - 1 } : null;
  if (was !== undefined && STAGE[was] >= STAGE[status]) return null;
  const next = { ...counts, [status]: counts[status] + 1 };
  if (was !== undefined) next[was] -= 1;
  return next;
}
