import { describe, expect, it } from 'vitest';
import type { SiteHealthResult } from '../../../src/checks/site-health/result.ts';
import { outputExampleFor } from '../../../src/payments/server/output-examples.ts';
import { activate, advance, newWatch, type WatchRecord } from '../../../src/watches/model.ts';
import { roundWindowMs } from '../../../src/watches/round-check.ts';
import { firstCheckAfter, nextCheckAfter, slotAtOrAfter, slotOffsetMs } from '../../../src/watches/slots.ts';

const DAY_S = 86_400;
const INTERVAL_S = 21_600;
const INTERVAL_MS = INTERVAL_S * 1000;
const WINDOW_MS = roundWindowMs(INTERVAL_S);
const NOW = Date.parse('2026-11-27T00:00:00Z');
const result = outputExampleFor('v1_site_health') as SiteHealthResult;

/** Whether `at` is `domain`'s slot. */
const onGrid = (domain: string, intervalS: number, at: number) => {
  const spanMs = intervalS * 1000;
  return (((at - slotOffsetMs(domain, spanMs)) % spanMs) + spanMs) % spanMs === 0;
};

describe('a domain’s slot', () => {
  it('is stable: the same domain has the same offset, a different one (almost always) another', () => {
    const offset = slotOffsetMs('example.com', INTERVAL_MS);
    expect(slotOffsetMs('example.com', INTERVAL_MS)).toBe(offset);
    expect(offset).toBeGreaterThanOrEqual(0);
    expect(offset).toBeLessThan(INTERVAL_MS);
    expect(slotOffsetMs('example.net', INTERVAL_MS)).not.toBe(offset);
    expect(slotOffsetMs('xample.com', INTERVAL_MS)).not.toBe(offset);
  });

  it('spreads 10,000 domains, named alike, roughly evenly over the interval', () => {
    const buckets = new Array<number>(20).fill(0);
    for (let i = 0; i < 10_000; i += 1) {
      const offset = slotOffsetMs(`site${i}.example.com`, INTERVAL_MS);
      const bucket = Math.floor((offset / INTERVAL_MS) * buckets.length);
      buckets[bucket] = (buckets[bucket] ?? 0) + 1;
    }
    // 500 expected per bucket; a uniform spread strays by about 22 (one standard deviation).
    for (const count of buckets) {
      expect(count).toBeGreaterThan(400);
      expect(count).toBeLessThan(600);
    }
    // Nor do they fall on a few instants: over 21,600,000 ms, some 2 pairs share one by chance.
    const distinct = new Set(
      Array.from({ length: 10_000 }, (_, i) => slotOffsetMs(`site${i}.example.com`, INTERVAL_MS)),
    );
    expect(distinct.size).toBeGreaterThan(9_990);
  });

  it('comes once an interval, whatever the interval', () => {
    for (const intervalS of [1, 2, 60, INTERVAL_S]) {
      const spanMs = intervalS * 1000;
      const first = slotAtOrAfter('example.com', intervalS, NOW);
      expect(first).toBeGreaterThanOrEqual(NOW);
      expect(first - NOW).toBeLessThan(spanMs);
      expect(onGrid('example.com', intervalS, first)).toBe(true);
      expect(slotAtOrAfter('example.com', intervalS, first)).toBe(first);
      expect(slotAtOrAfter('example.com', intervalS, first + 1)).toBe(first + spanMs);
    }
  });

  it('takes any name: the longest, Unicode, punycode and injection-shaped ones land in the interval', () => {
    for (const name of [
      `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`,
      'xn--bcher-kva.example.com',
      'bücher.example.com',
      "'; DROP TABLE watches; --",
      '',
      '\u0000\uffff',
    ]) {
      const offset = slotOffsetMs(name, INTERVAL_MS);
      expect(Number.isInteger(offset)).toBe(true);
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(INTERVAL_MS);
    }
  });
});

describe('a watch’s checks', () => {
  it('begin at the domain’s first slot a tenth of an interval to 1.1 intervals after the purchase', () => {
    for (const intervalS of [1, 10, 60, INTERVAL_S])
      for (let i = 0; i < 500; i += 1) {
        const boughtAt = NOW + i * 7_919_003;
        const first = firstCheckAfter(`site${i}.example.com`, intervalS, boughtAt);
        expect(first - boughtAt).toBeGreaterThanOrEqual(intervalS * 100);
        expect(first - boughtAt).toBeLessThan(intervalS * 1100);
        expect(onGrid(`site${i}.example.com`, intervalS, first)).toBe(true);
      }
  });

  it('go on exactly one interval apart, slot to slot, from a check begun up to ¾ of an interval late', () => {
    const slot = slotAtOrAfter('example.com', INTERVAL_S, NOW);
    for (const lateMs of [0, 3, 60_000, INTERVAL_MS / 2, INTERVAL_MS - WINDOW_MS])
      expect(nextCheckAfter('example.com', INTERVAL_S, slot + lateMs)).toBe(slot + INTERVAL_MS);
    // A check stalled past that would hand its result out at the next slot: that slot is skipped.
    expect(nextCheckAfter('example.com', INTERVAL_S, slot + INTERVAL_MS - WINDOW_MS + 1)).toBe(
      slot + 2 * INTERVAL_MS,
    );
  });

  it('never come while the result the watch used is still handed out', () => {
    for (const intervalS of [1, 10, 60, INTERVAL_S])
      for (let i = 0; i < 500; i += 1) {
        const checkedAt = NOW + i * 7_919_003;
        const next = nextCheckAfter(`site${i}.example.com`, intervalS, checkedAt);
        expect(next - checkedAt).toBeGreaterThanOrEqual(roundWindowMs(intervalS));
        expect(next - checkedAt).toBeLessThan(roundWindowMs(intervalS) + intervalS * 1000);
        expect(onGrid(`site${i}.example.com`, intervalS, next)).toBe(true);
      }
  });

  /** Twenty watches of example.com bought `apartMs` apart, activated. */
  const bought = (apartMs: number) =>
    Array.from({ length: 20 }, (_, i) => {
      const boughtAt = NOW + i * apartMs;
      const pending = newWatch({
        id: `wat_${i}`,
        domain: 'example.com',
        days: 30,
        webhookUrl: null,
        intervalS: INTERVAL_S,
        dayS: DAY_S,
        now: boughtAt,
        result,
      });
      return activate(pending, boughtAt, DAY_S).watch;
    });

  /**
   * One instance's rounds over `watches` (replaced as they move on) until `until`: a watch due takes
   * the domain's last result while the round window keeps it, else checks, `lateMs` after its slot.
   * Returns the instants checked.
   */
  function run(watches: WatchRecord[], until: number, lateMs: number): number[] {
    const checks: number[] = [];
    for (;;) {
      const at = Math.min(...watches.map((watch) => watch.nextCheckAt));
      if (at >= until) return checks;
      const i = watches.findIndex((watch) => watch.nextCheckAt === at);
      const claimedAt = at + lateMs;
      const last = checks.at(-1);
      if (last === undefined || claimedAt >= last + WINDOW_MS) checks.push(claimedAt);
      const used = checks.at(-1) as number;
      const previous = watches[i] as WatchRecord;
      watches[i] = advance(previous, { ok: true, result }, claimedAt, DAY_S, used).watch;
      expect(watches[i]?.nextCheckAt).toBeGreaterThanOrEqual(used + WINDOW_MS);
    }
  }

  it('of twenty watches bought over a day are one check per interval, from the first on', () => {
    for (const lateMs of [3, 60_000, INTERVAL_MS / 2]) {
      const watches = bought(4_321_987);
      const lastBought = NOW + 19 * 4_321_987;
      const start = slotAtOrAfter('example.com', INTERVAL_S, NOW);
      expect(new Set(watches.map((watch) => onGrid('example.com', INTERVAL_S, watch.nextCheckAt)))).toEqual(
        new Set([true]),
      );
      const checks = run(watches, lastBought + 10 * INTERVAL_MS, lateMs);
      expect(checks.length).toBeLessThanOrEqual((lastBought + 10 * INTERVAL_MS - start) / INTERVAL_MS + 1);
      for (const [k, at] of checks.entries())
        if (k > 0) expect(at - (checks[k - 1] as number)).toBe(INTERVAL_MS);
      expect(new Set(watches.map((watch) => watch.nextCheckAt)).size).toBe(1);
    }
  });
});
