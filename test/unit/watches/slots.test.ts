import { describe, expect, it } from 'vitest';
import type { SiteHealthResult } from '../../../src/checks/site-health/result.ts';
import { outputExampleFor } from '../../../src/payments/output-examples.ts';
import { activate, advance, newWatch } from '../../../src/watches/model.ts';
import { nextCheckAfter, slotAtOrAfter, slotOffsetMs } from '../../../src/watches/slots.ts';

const DAY_S = 86_400;
const INTERVAL_S = 21_600;
const INTERVAL_MS = INTERVAL_S * 1000;
const NOW = Date.parse('2026-11-27T00:00:00Z');
const result = outputExampleFor('v1_site_health') as SiteHealthResult;

/** Whether `at` is one of `domain`'s slots. */
const onGrid = (domain: string, intervalS: number, at: number) =>
  (((at - slotOffsetMs(domain, intervalS * 1000)) % (intervalS * 1000)) + intervalS * 1000) %
    (intervalS * 1000) ===
  0;

describe('a domain’s slots', () => {
  it('are stable: the same domain has the same offset, a different one (almost always) another', () => {
    const offset = slotOffsetMs('example.com', INTERVAL_MS);
    expect(slotOffsetMs('example.com', INTERVAL_MS)).toBe(offset);
    expect(offset).toBeGreaterThanOrEqual(0);
    expect(offset).toBeLessThan(INTERVAL_MS);
    expect(slotOffsetMs('example.net', INTERVAL_MS)).not.toBe(offset);
    expect(slotOffsetMs('xample.com', INTERVAL_MS)).not.toBe(offset);
  });

  it('spread 10,000 domains, named alike, roughly evenly over the interval', () => {
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
    // Nor do they fall on a few instants: at most a handful share one millisecond.
    const distinct = new Set(
      Array.from({ length: 10_000 }, (_, i) => slotOffsetMs(`site${i}.example.com`, INTERVAL_MS)),
    );
    expect(distinct.size).toBeGreaterThan(9_990);
  });

  it('are a grid one interval apart, whatever the interval', () => {
    for (const intervalS of [1, 2, 60, INTERVAL_S]) {
      const first = slotAtOrAfter('example.com', intervalS, NOW);
      expect(first).toBeGreaterThanOrEqual(NOW);
      expect(first - NOW).toBeLessThan(intervalS * 1000);
      expect(onGrid('example.com', intervalS, first)).toBe(true);
      expect(slotAtOrAfter('example.com', intervalS, first)).toBe(first);
      expect(slotAtOrAfter('example.com', intervalS, first + 1)).toBe(first + intervalS * 1000);
    }
  });

  it('take any name: the longest, Unicode, punycode and injection-shaped ones land in the interval', () => {
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

describe('a watch’s next check', () => {
  it('comes at least half an interval and less than one and a half after the last', () => {
    for (let i = 0; i < 500; i += 1) {
      const checkedAt = NOW + i * 7_919_003;
      const next = nextCheckAfter(`site${i}.example.com`, INTERVAL_S, checkedAt);
      expect(next).toBeGreaterThan(checkedAt);
      expect(next - checkedAt).toBeGreaterThanOrEqual(INTERVAL_MS / 2);
      expect(next - checkedAt).toBeLessThan(INTERVAL_MS * 1.5);
      expect(onGrid(`site${i}.example.com`, INTERVAL_S, next)).toBe(true);
    }
  });

  it('is one interval after a slot whose check ran less than half an interval late', () => {
    const slot = slotAtOrAfter('example.com', INTERVAL_S, NOW);
    expect(nextCheckAfter('example.com', INTERVAL_S, slot)).toBe(slot + INTERVAL_MS);
    expect(nextCheckAfter('example.com', INTERVAL_S, slot + INTERVAL_MS / 2 - 1)).toBe(slot + INTERVAL_MS);
  });

  it('is the same instant for every watch of a domain once each has been checked, whenever bought', () => {
    // Twenty watches bought over a day, at times that share nothing.
    const watches = Array.from({ length: 20 }, (_, i) => {
      const boughtAt = NOW + i * 4_321_987;
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
      expect(onGrid('example.com', INTERVAL_S, pending.nextCheckAt)).toBe(true);
      return activate(pending, boughtAt, DAY_S).watch;
    });
    // Each is checked at each of its slots (a little late) until a day after the last purchase.
    const until = NOW + 20 * 4_321_987 + DAY_S * 1000;
    const met = watches.map((bought, i) => {
      let watch = bought;
      while (watch.nextCheckAt < until)
        watch = advance(watch, { ok: true, result }, watch.nextCheckAt + i * 1000, DAY_S).watch;
      return watch;
    });
    const latest = slotAtOrAfter('example.com', INTERVAL_S, until);
    expect(met.map((watch) => watch.nextCheckAt)).toEqual(met.map(() => latest));
    // Other domains' watches bought at the same times are due at their own instants.
    expect(nextCheckAfter('example.net', INTERVAL_S, latest)).not.toBe(latest + INTERVAL_MS);
  });
});
