import { describe, expect, it } from 'vitest';
import { assessStall } from '../../../../src/checks/cert/stall.ts';
import { issuance, NOW } from './fixtures.ts';

describe('renewal-stall heuristic', () => {
  it('unknown without a current certificate', () => {
    expect(assessStall(null, null, NOW)).toEqual({
      stall: { status: 'unknown', reason: expect.any(String), overdue_days: null, basis: 'none' },
      expectedRenewalAt: null,
      renewBy: null,
    });
  });

  it('ok before the expected renewal (notBefore + cadence); renew by the end of the grace', () => {
    const { stall, expectedRenewalAt, renewBy } = assessStall(issuance({ daysAgo: 40 }), 60, NOW);
    expect(stall).toMatchObject({ status: 'ok', overdue_days: null, basis: 'cadence' });
    expect(expectedRenewalAt?.toISOString()).toBe('2026-11-09T12:00:00.000Z');
    // Grace of 5 % of a 90-day lifetime (4.5 days, less a second's share).
    expect(renewBy?.getTime()).toBe(new Date('2026-11-14T00:00:00Z').getTime() - 50);
  });

  it('ok within the grace of max(2 days, 5 % of the lifetime) = 4.5 days for 90-day certificates', () => {
    expect(assessStall(issuance({ daysAgo: 64.4 }), 60, NOW).stall.status).toBe('ok');
    expect(assessStall(issuance({ daysAgo: 64.6 }), 60, NOW).stall.status).toBe('watch');
  });

  it('watch when past it with time left; overdue days counted from the expected renewal', () => {
    const { stall } = assessStall(issuance({ daysAgo: 66 }), 55, NOW);
    expect(stall).toMatchObject({ status: 'watch', overdue_days: 11 });
    expect(stall.reason).toMatch(/due on 2026-10-09 \(the usual 55-day cadence\).* 23 days are left/);
  });

  it('stalled when past it and days left ≤ max(7, lifetime/6) = 15 for 90-day certificates', () => {
    expect(assessStall(issuance({ daysAgo: 74.9 }), 60, NOW).stall.status).toBe('watch');
    const { stall } = assessStall(issuance({ daysAgo: 85 }), 60, NOW);
    expect(stall).toMatchObject({ status: 'stalled', overdue_days: 25 });
  });

  it('without a cadence, expects renewal at two-thirds of the lifetime', () => {
    const { stall, expectedRenewalAt } = assessStall(issuance({ daysAgo: 50, lifetimeDays: 64 }), null, NOW);
    expect(expectedRenewalAt?.getTime()).toBeCloseTo(
      NOW.getTime() - 50 * 86_400_000 + ((64 * 86_400_000 - 1000) * 2) / 3,
      -1,
    );
    // 64-day: expected at day 42.7, grace 3.2 days, stalled at ≤ 10.7 days left; 14 left → watch.
    expect(stall.status).toBe('watch');
    expect(stall.reason).toContain('two-thirds of the lifetime');
  });

  it('stalled once expired, and never expects a renewal after expiry', () => {
    const { stall, expectedRenewalAt } = assessStall(issuance({ daysAgo: 100 }), 120, NOW);
    expect(stall.status).toBe('stalled');
    expect(stall.reason).toContain('expired');
    expect(expectedRenewalAt?.toISOString()).toBe('2026-10-10T11:59:59.000Z');
  });
});
