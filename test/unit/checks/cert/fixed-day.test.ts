import { describe, expect, it } from 'vitest';
import { detectFixedRenewalDay } from '../../../../src/checks/cert/fixed-day.ts';
import { assessCadence } from '../../../../src/checks/cert/renewal.ts';
import { history } from './fixtures.ts';

const fixedDayOf = (ages: number[], lifetimeDays = 90) => {
  const issuances = history(ages, { lifetimeDays });
  const [current] = issuances;
  if (!current) throw new Error('empty');
  return detectFixedRenewalDay(assessCadence(issuances, current, 'shop.com'));
};

describe('fixed-day renewal', () => {
  it('renewing exactly 60 days after issuance breaks 64-day certificates (4 days left)', () => {
    expect(fixedDayOf([10, 70, 130, 190])).toEqual({ days: 60, daysLeftOn64: 4 });
  });

  it('a fixed day 80 would renew after a 64-day certificate expired', () => {
    expect(fixedDayOf([10, 90, 170], 90)).toEqual({ days: 80, daysLeftOn64: -16 });
  });

  it('tolerates a day of jitter around the fixed day', () => {
    expect(fixedDayOf([10, 70.5, 130, 190.8])?.days).toBe(60.5);
  });

  it('irregular (ARI-like) renewals are not a fixed day', () => {
    expect(fixedDayOf([20, 79, 141, 197, 259])).toBeNull();
  });

  it('a fixed day that leaves a third of a 64-day certificate is fine (30 days of 45)', () => {
    expect(fixedDayOf([5, 35, 65, 95], 45)).toBeNull();
  });

  it('needs at least two intervals, and ignores long-lived (yearly) series', () => {
    expect(fixedDayOf([10, 70])).toBeNull();
    expect(fixedDayOf([10, 375, 740], 398)).toBeNull();
  });
});
