import { describe, expect, it } from 'vitest';
import type { SiteHealthResult } from '../../../src/checks/site-health/result.ts';
import { outputExampleFor } from '../../../src/payments/server/output-examples.ts';
import { activate, advance, newWatch, type WatchRecord } from '../../../src/watches/model.ts';
import { roundWindowMs } from '../../../src/watches/round-check.ts';
import { nextCheckAfter, slotAtOrAfter, slotOffsetMs, slotSpacingMs } from '../../../src/watches/slots.ts';

const DAY_S = 86_400;
const INTERVAL_S = 21_600;
const INTERVAL_MS = INTERVAL_S * 1000;
const SPACING_MS = INTERVAL_MS / 10;
const NOW = Date.parse('2026-11-27T00:00:00Z');
const result = outputExampleFor('v1_site_health') as SiteHealthResult;

/** Whether `at` is one of `domain`'s slots. */
const onGrid = (domain: string, intervalS: number, at: number) => {
  const spacingMs = slotSpacingMs(intervalS);
  return (((at - slotOffsetMs(domain, spacingMs)) % spacingMs) + spacingMs) % spacingMs === 0;
};

describe('a domain’s slots', () => {
  it('are stable: the same domain has the same offset, a different one (almost always) another', () => {
    expect(slotSpacingMs(INTERVAL_S)).toBe(SPACING_MS);
    const offset = slotOffsetMs('example.com', SPACING_MS);
    expect(slotOffsetMs('example.com', SPACING_MS)).toBe(offset);
    expect(offset).toBeGreaterThanOrEqual(0);
    expect(offset).toBeLessThan(SPACING_MS);
    expect(slotOffsetMs('example.net', SPACING_MS)).not.toBe(offset);
    expect(slotOffsetMs('xample.com', SPACING_MS)).not.toBe(offset);
  });

  it('spread 10,000 domains, named alike, roughly evenly over the spacing', () => {
    const buckets = new Array<number>(20).fill(0);
    for (let i = 0; i < 10_000; i += 1) {
      const offset = slotOffsetMs(`site${i}.example.com`, SPACING_MS);
      const bucket = Math.floor((offset / SPACING_MS) * buckets.length);
      buckets[bucket] = (buckets[bucket] ?? 0) + 1;
    }
    // 500 expected per bucket; a uniform spread strays by about 22 (one standard deviation).
    for (const count of buckets) {
      expect(count).toBeGreaterThan(400);
      expect(count).toBeLessThan(600);
    }
    // Nor do they fall on a few instants: over 2,160,000 ms, some 23 pairs share one by chance.
    const distinct = new Set(
      Array.from({ length: 10_000 }, (_, i) => slotOffsetMs(`site${i}.example.com`, SPACING_MS)),
    );
    expect(distinct.size).toBeGreaterThan(9_900);
  });

  it('are a grid a tenth of an interval apart, whatever the interval', () => {
    for (const intervalS of [1, 2, 60, INTERVAL_S]) {
      const spacingMs = intervalS * 100;
      const first = slotAtOrAfter('example.com', intervalS, NOW);
      expect(first).toBeGreaterThanOrEqual(NOW);
      expect(first - NOW).toBeLessThan(spacingMs);
      expect(onGrid('example.com', intervalS, first)).toBe(true);
      expect(slotAtOrAfter('example.com', intervalS, first)).toBe(first);
      expect(slotAtOrAfter('example.com', intervalS, first + 1)).toBe(first + spacingMs);
    }
  });

  it('take any name: the longest, Unicode, punycode and injection-shaped ones land in the spacing', () => {
    for (const name of [
      `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`,
      'xn--bcher-kva.example.com',
      'bücher.example.com',
      "'; DROP TABLE watches; --",
      '',
      '\u0000\uffff',
    ]) {
      const offset = slotOffsetMs(name, SPACING_MS);
      expect(Number.isInteger(offset)).toBe(true);
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(SPACING_MS);
    }
  });
});

describe('a watch’s next check', () => {
  it('comes at least one interval and less than 1.1 intervals after the result it used', () => {
    for (const intervalS of [1, 10, 60, INTERVAL_S])
      for (let i = 0; i < 500; i += 1) {
        const checkedAt = NOW + i * 7_919_003;
        const next = nextCheckAfter(`site${i}.example.com`, intervalS, checkedAt);
        expect(next - checkedAt).toBeGreaterThanOrEqual(intervalS * 1000);
        expect(next - checkedAt).toBeLessThan(intervalS * 1100);
        expect(onGrid(`site${i}.example.com`, intervalS, next)).toBe(true);
      }
  });

  it('is exactly one interval on from a result taken at a slot', () => {
    const slot = slotAtOrAfter('example.com', INTERVAL_S, NOW);
    expect(nextCheckAfter('example.com', INTERVAL_S, slot)).toBe(slot + INTERVAL_MS);
    expect(nextCheckAfter('example.com', INTERVAL_S, slot + 1)).toBe(slot + INTERVAL_MS + SPACING_MS);
  });

  it('spreads a domain’s watches bought at any time over all ten of its slots in an interval', () => {
    const phases = new Set<number>();
    for (let i = 0; i < 200; i += 1) {
      const next = nextCheckAfter('example.com', INTERVAL_S, NOW + i * 1_234_567);
      phases.add(Math.floor(((((next - NOW) % INTERVAL_MS) + INTERVAL_MS) % INTERVAL_MS) / SPACING_MS));
    }
    expect([...phases].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
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
      expect(pending.nextCheckAt - boughtAt).toBeGreaterThanOrEqual(INTERVAL_MS);
      expect(pending.nextCheckAt - boughtAt).toBeLessThan(INTERVAL_MS * 1.1);
      return activate(pending, boughtAt, DAY_S).watch;
    });

  /**
   * One instance's round over `watches` (replaced as they move on): a watch due takes the domain's
   * last result while the round window keeps it, else checks, 3 ms after its slot. Returns the checks.
   */
  function round(watches: WatchRecord[]): number {
    let last: number | null = null;
    let checks = 0;
    const start = Math.min(...watches.map((watch) => watch.nextCheckAt));
    for (;;) {
      const at = Math.min(...watches.map((watch) => watch.nextCheckAt));
      if (at >= start + INTERVAL_MS) return checks;
      const i = watches.findIndex((watch) => watch.nextCheckAt === at);
      const claimedAt = at + 3;
      if (last === null || claimedAt >= last + roundWindowMs(INTERVAL_S)) {
        last = claimedAt;
        checks += 1;
      }
      const previous = watches[i] as WatchRecord;
      watches[i] = advance(previous, { ok: true, result }, claimedAt, DAY_S, last).watch;
      expect(watches[i]?.nextCheckAt).toBeGreaterThanOrEqual(last + INTERVAL_MS);
    }
  }

  it('puts twenty watches bought 200 s apart (two slots) onto one slot after one round that shares results', () => {
    const watches = bought(200_000);
    expect(new Set(watches.map((watch) => watch.nextCheckAt)).size).toBeGreaterThan(1);
    round(watches);
    expect(new Set(watches.map((watch) => watch.nextCheckAt)).size).toBe(1);
    expect(round(watches)).toBe(1);
    expect(round(watches)).toBe(1);
  });

  it('gathers twenty watches bought over a day onto at most four slots, for good, once each is checked', () => {
    const watches = bought(4_321_987);
    const firstChecks = watches.map((watch) => watch.nextCheckAt);
    expect(
      new Set(firstChecks.map((at) => Math.floor((at % INTERVAL_MS) / SPACING_MS))).size,
    ).toBeGreaterThan(4);
    while (Math.min(...watches.map((watch) => watch.nextCheckAt)) <= Math.max(...firstChecks)) round(watches);
    const slots = new Set(watches.map((watch) => watch.nextCheckAt)).size;
    expect(slots).toBeLessThanOrEqual(4);
    for (let i = 0; i < 8; i += 1) expect(round(watches)).toBe(slots);
  });
});
