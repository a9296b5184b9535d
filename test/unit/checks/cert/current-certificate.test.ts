import { describe, expect, it } from 'vitest';
import { currentIssuance, describeCertificate } from '../../../../src/checks/cert/current-certificate.ts';
import { history, issuance, NOW } from './fixtures.ts';

describe('current certificate', () => {
  it('is the newest issuance covering the exact name, with days, lifetime and percent used', () => {
    const issuances = history([80, 20, 140]);
    const current = currentIssuance(issuances, 'shop.com');
    expect(current).toBe(issuances[1]);
    if (!current) throw new Error('no current');
    expect(describeCertificate(current, 'shop.com', NOW)).toEqual({
      issuer: "Let's Encrypt",
      issuer_dn: "C=US, O=Let's Encrypt, CN=R11",
      serial: current.serial,
      not_before: '2026-09-30T12:00:00Z',
      not_after: '2026-12-29T11:59:59Z',
      days_left: 69,
      lifetime_days: 90,
      percent_used: 22.2,
      names: ['shop.com', 'www.shop.com'],
      wildcard: false,
    });
  });

  it('counts a wildcard one level up as covering, and says so', () => {
    const wildcard = issuance({ daysAgo: 5, names: ['*.shop.com'] });
    const current = currentIssuance([issuance({ daysAgo: 30 }), wildcard], 'api.shop.com');
    expect(current).toBe(wildcard);
    expect(current && describeCertificate(current, 'api.shop.com', NOW).wildcard).toBe(true);
  });

  it('ignores wildcards two levels up, a wildcard for the apex itself and unrelated names', () => {
    const issuances = [
      issuance({ daysAgo: 1, names: ['*.shop.com'] }),
      issuance({ daysAgo: 2, names: ['www.shop.com'] }),
      issuance({ daysAgo: 3, names: ['*.eu.shop.com'] }),
    ];
    expect(currentIssuance(issuances, 'a.b.shop.com')).toBeNull();
    expect(currentIssuance(issuances, 'shop.com')).toBeNull();
    expect(currentIssuance(issuances, 'de.eu.shop.com')).toBe(issuances[2]);
  });

  it('reports an expired certificate with negative days left and 100 % used', () => {
    const current = issuance({ daysAgo: 95 });
    const view = describeCertificate(current, 'shop.com', NOW);
    expect(view.days_left).toBe(-6);
    expect(view.percent_used).toBe(100);
  });
});
