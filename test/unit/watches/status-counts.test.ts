import { describe, expect, it } from 'vitest';
import type { WatchStatus } from '../../../src/watches/model.ts';
import { countedReport, noWatches, type WatchCounts } from '../../../src/watches/status-counts.ts';

/** Applies reports `[watch, status]` in order, as the counter object does, keeping each watch's status. */
function replay(reports: [string, WatchStatus | null][]): WatchCounts {
  let counts = noWatches();
  const statuses = new Map<string, WatchStatus>();
  for (const [watch, status] of reports) {
    const next = countedReport(counts, statuses.get(watch), status);
    if (!next) continue;
    counts = next;
    if (status === null) statuses.delete(watch);
    else statuses.set(watch, status);
  }
  return counts;
}

describe('countedReport', () => {
  it('follows a watch through its life', () => {
    expect(replay([['a', 'pending']])).toEqual({ ...noWatches(), pending: 1 });
    expect(
      replay([
        ['a', 'pending'],
        ['a', 'active'],
      ]),
    ).toEqual({ ...noWatches(), active: 1 });
    expect(
      replay([
        ['a', 'pending'],
        ['a', 'active'],
        ['a', 'ended'],
      ]),
    ).toEqual({ ...noWatches(), ended: 1 });
    expect(
      replay([
        ['a', 'active'],
        ['a', 'cancelled'],
      ]),
    ).toEqual({ ...noWatches(), cancelled: 1 });
    expect(
      replay([
        ['a', 'pending'],
        ['a', null],
      ]),
    ).toEqual(noWatches());
  });

  it('ignores a repeated report', () => {
    expect(
      replay([
        ['a', 'active'],
        ['a', 'active'],
        ['b', 'active'],
        ['b', 'active'],
      ]),
    ).toEqual({
      ...noWatches(),
      active: 2,
    });
  });

  it('ignores a late report that would move a watch back', () => {
    expect(
      replay([
        ['a', 'active'],
        ['a', 'pending'],
      ]),
    ).toEqual({ ...noWatches(), active: 1 });
    expect(
      replay([
        ['a', 'cancelled'],
        ['a', 'active'],
        ['a', 'pending'],
      ]),
    ).toEqual({
      ...noWatches(),
      cancelled: 1,
    });
    // Ended and cancelled are both final: the first one counted stays.
    expect(
      replay([
        ['a', 'ended'],
        ['a', 'cancelled'],
      ]),
    ).toEqual({ ...noWatches(), ended: 1 });
  });

  it('discards only a pending watch, and a discard of an uncounted one changes nothing', () => {
    expect(
      replay([
        ['a', 'active'],
        ['a', null],
      ]),
    ).toEqual({ ...noWatches(), active: 1 });
    expect(replay([['a', null]])).toEqual(noWatches());
    expect(countedReport(noWatches(), undefined, null)).toBeNull();
  });

  it('lands on the same counts whatever the order of one watch’s reports', () => {
    const life: [string, WatchStatus][] = [
      ['a', 'pending'],
      ['a', 'active'],
      ['a', 'ended'],
    ];
    const orders = [
      life,
      [...life].reverse(),
      [life[1]!, life[0]!, life[2]!],
      [life[2]!, life[0]!, life[1]!],
    ];
    for (const order of orders) expect(replay(order)).toEqual({ ...noWatches(), ended: 1 });
  });

  it('does not change the counts it was given', () => {
    const counts = { ...noWatches(), pending: 1 };
    countedReport(counts, 'pending', 'active');
    expect(counts).toEqual({ ...noWatches(), pending: 1 });
  });
});
