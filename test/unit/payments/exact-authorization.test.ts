/** An authorization's window, judged at a given now as the token contract will judge its block. */
import { describe, expect, it } from 'vitest';
import { WINDOW_REFUSALS, windowRefusal } from '../../../src/payments/exact-authorization.ts';

const NOW_S = 1_800_000_000n;
const at = (validAfter: bigint, validBefore: bigint, nowMs = Number(NOW_S) * 1000 + 999) =>
  windowRefusal({ validAfter, validBefore }, nowMs);

describe('windowRefusal', () => {
  it('takes a window open now with at least 6 s left, to the second', () => {
    expect(at(NOW_S, NOW_S + 6n)).toBeNull();
    expect(at(NOW_S - 600n, NOW_S + 45n)).toBeNull();
  });

  it('refuses a window that ends within 6 s, or has ended', () => {
    expect(at(NOW_S - 60n, NOW_S + 5n)).toBe(WINDOW_REFUSALS.expired);
    expect(at(NOW_S - 60n, NOW_S - 1n)).toBe(WINDOW_REFUSALS.expired);
  });

  it('refuses a window that opens after now', () => {
    expect(at(NOW_S + 1n, NOW_S + 45n)).toBe(WINDOW_REFUSALS.notYetValid);
  });

  it('judges at the now it is given, whatever this machine reads', () => {
    // Two minutes behind this window's now, the same authorization is not valid yet.
    expect(at(NOW_S, NOW_S + 45n, Number(NOW_S) * 1000 - 120_000)).toBe(WINDOW_REFUSALS.notYetValid);
  });
});
