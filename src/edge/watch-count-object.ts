/**
 * The `website_checks_watches` gauge on Workers without waking every watch: one object (named
 * `all`) keeps each watch's status as its watch object reported it, with the counts by status in the
 * same write. A watch's status only moves forward (pending → active → ended or cancelled; a pending
 * one may be discarded), so a report that arrives late or twice cannot move a count back: reports are
 * idempotent and need no order. A watch object reports after each change it makes and again, until
 * one is taken, from its next runs (`reportWatchStatus`).
 */
import { DurableObject, type DurableObjectNamespace, type DurableObjectState } from 'cloudflare:workers';
import type { WatchStatus } from '../watches/model.ts';
import type { WatchStore } from '../watches/ports.ts';
import type { EdgeVariables } from './edge-config.ts';

export type WatchCounts = Record<WatchStatus, number>;

/** How far along its life a status is; a report never moves a watch back. */
const STAGE: Record<WatchStatus, number> = { pending: 0, active: 1, ended: 2, cancelled: 2 };
const COUNTS = 'counts';
const statusKey = (watch: string) => `status:${watch}`;
const none = (): WatchCounts => ({ pending: 0, active: 0, ended: 0, cancelled: 0 });

export class WatchCountObject extends DurableObject {
  /**
   * `watch` (its object's id) now has `status`, or none (a pending watch discarded). Storage calls
   * keep the object's input gate shut: no other report runs between the reads and the write.
   */
  async report(watch: string, status: WatchStatus | null): Promise<void> {
    const { storage } = this.ctx;
    const [was, counts = none()] = await Promise.all([
      storage.get<WatchStatus>(statusKey(watch)),
      storage.get<WatchCounts>(COUNTS),
    ]);
    if (was === status) return;
    if (status === null) {
      if (was !== 'pending') return;
      counts.pending -= 1;
      await Promise.all([storage.delete(statusKey(watch)), storage.put(COUNTS, counts)]);
      return;
    }
    if (was !== undefined && STAGE[was] >= STAGE[status]) return;
    if (was !== undefined) counts[was] -= 1;
    counts[status] += 1;
    await storage.put<unknown>({ [statusKey(watch)]: status, [COUNTS]: counts });
  }

  async counts(): Promise<WatchCounts> {
    return (await this.ctx.storage.get<WatchCounts>(COUNTS)) ?? none();
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
 * deployment's counter when it differs from the last one the counter took; nothing without the
 * `WATCH_COUNTS` binding. A report that fails (it throws) is made again on the object's next call.
 */
export async function reportWatchStatus(
  state: DurableObjectState,
  env: EdgeVariables,
  store: Pick<WatchStore, 'countByStatus'>,
): Promise<void> {
  const counts = (env as { WATCH_COUNTS?: DurableObjectNamespace<WatchCountObject> }).WATCH_COUNTS;
  if (!counts) return;
  const byStatus = await store.countByStatus();
  const status = (Object.keys(STAGE) as WatchStatus[]).find((each) => byStatus[each] > 0) ?? 'none';
  if ((await state.storage.get(REPORTED)) === status) return;
  await watchCounter(counts).report(state.id.toString(), status === 'none' ? null : status);
  await state.storage.put(REPORTED, status);
}
