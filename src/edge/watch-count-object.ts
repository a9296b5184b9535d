/**
 * The `website_checks_watches` gauge on Workers without waking every watch: one object (named
 * `all`) keeps each watch's status as its watch object reported it, with the counts by status in the
 * same write. Reports may come late or twice and need no order (`countedReport`). A watch object
 * reports after each change it makes and again, until one is taken, from its next calls
 * (`reportWatchStatus`).
 */
import { DurableObject, type DurableObjectNamespace, type DurableObjectState } from 'cloudflare:workers';
import type { WatchStatus } from '../watches/model.ts';
import type { WatchStore } from '../watches/ports.ts';
import { countedReport, noWatches, WATCH_STATUSES, type WatchCounts } from '../watches/status-counts.ts';

const COUNTS = 'counts';
const statusKey = (watch: string) => `status:${watch}`;

export class WatchCountObject extends DurableObject {
  /**
   * `watch` (its object's id) now has `status`, or none (a pending watch discarded). Storage calls
   * keep the object's input gate shut: no other report runs between the reads and the write.
   */
  async report(watch: string, status: WatchStatus | null): Promise<void> {
    const { storage } = this.ctx;
    const [was, counts = noWatches()] = await Promise.all([
      storage.get<WatchStatus>(statusKey(watch)),
      storage.get<WatchCounts>(COUNTS),
    ]);
    const next = countedReport(counts, was, status);
    if (!next) return;
    await (status === null
      ? Promise.all([storage.delete(statusKey(watch)), storage.put(COUNTS, next)])
      : storage.put<unknown>({ [statusKey(watch)]: status, [COUNTS]: next }));
  }

  async counts(): Promise<WatchCounts> {
    return (await this.ctx.storage.get<WatchCounts>(COUNTS)) ?? noWatches();
  }
}

/** The one counter object of a deployment. */
export function watchCounter(namespace: DurableObjectNamespace<WatchCountObject>) {
  return namespace.get(namespace.idFromName('all'));
}

/** Where a watch object remembers the last status the counter took from it. */
const REPORTED = 'counted-status';

/**
 * Reports the status of the watch object `state` holds (none: no watch, or discarded) to the
 * deployment's counter (`counts`, the `WATCH_COUNTS` binding; nothing without it) when it differs
 * from the last one the counter took. A report that fails (it throws) is made again on the
 * object's next call.
 */
export async function reportWatchStatus(
  state: DurableObjectState,
  counts: DurableObjectNamespace<WatchCountObject> | undefined,
  store: Pick<WatchStore, 'countByStatus'>,
): Promise<void> {
  if (!counts) return;
  const byStatus = await store.countByStatus();
  const status = WATCH_STATUSES.find((each) => byStatus[each] > 0) ?? 'none';
  if ((await state.storage.get(REPORTED)) === status) return;
  await watchCounter(counts).report(state.id.toString(), status === 'none' ? null : status);
  await state.storage.put(REPORTED, status);
}
