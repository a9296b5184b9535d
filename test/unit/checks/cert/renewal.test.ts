import { describe, expect, it } from 'vitest';
import { assessCadence } from '../../../../src/checks/cert/renewal.ts';
import { history, issuance, SECTIGO } from './fixtures.ts';

const cadenceOf = (issuances: ReturnType<typeof history>, domain = 'shop.com') => {
  const current = issuances.reduce((a, b) => (a.notBefore > b.notBefore ? a : b));
  return assessCadence(issuances, current, domain);
};

describe('renewal cadence', () => {
  it('regular 60-day renewals of 90-day certificates: cadence 60, renewing at 66.7 % of the lifetime', () => {
    const cadence = cadenceOf(history([10, 70, 130, 190]));
    expect(cadence.cadenceDays).toBe(60);
    expect(cadence.renewsAtPercent).toBe(66.7);
    expect(cadence.intervalsDays).toEqual([60, 60, 60]);
  });

  it('irregular renewals: the median interval', () => {
    const cadence = cadenceOf(history([5, 60, 125, 180, 250]));
    expect(cadence.intervalsDays).toEqual([70, 55, 65, 55]);
    expect(cadence.cadenceDays).toBe(60);
  });

  it('ignores an overlapping second CA (a yearly Sectigo certificate)', () => {
    const issuances = [...history([10, 70, 130]), issuance({ daysAgo: 100, ca: SECTIGO, lifetimeDays: 199 })];
    const cadence = cadenceOf(issuances);
    expect(cadence.series).toHaveLength(3);
    expect(cadence.cadenceDays).toBe(60);
  });

  it('ignores a second certificate for another set of names that also lists the domain', () => {
    const issuances = [
      ...history([10, 70, 130]),
      ...history([40, 98], { names: ['api.shop.com', 'shop.com'] }),
    ];
    expect(cadenceOf(issuances).cadenceDays).toBe(60);
  });

  it('counts same-day duplicates (two servers renewing) as one renewal', () => {
    const issuances = [...history([10, 70, 130]), issuance({ daysAgo: 70.2 })];
    expect(cadenceOf(issuances).intervalsDays.map(Math.round)).toEqual([60, 60]);
  });

  it('falls back to the same CA when the name set changed at the last renewal', () => {
    const issuances = [issuance({ daysAgo: 5, names: ['new.shop.com', 'shop.com'] }), ...history([62, 120])];
    expect(cadenceOf(issuances).cadenceDays).toBe(57.5);
  });

  it('has no cadence with a single issuance', () => {
    const cadence = cadenceOf(history([10]));
    expect(cadence).toMatchObject({ cadenceDays: null, renewsAtPercent: null });
  });
});
