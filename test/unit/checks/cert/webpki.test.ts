import { describe, expect, it } from 'vitest';
import { assessCertificates } from '../../../../src/checks/cert/assess.ts';
import type { LiveProbe } from '../../../../src/checks/cert/result.ts';
import { hasWebPkiValidity, maxValidityDays } from '../../../../src/checks/cert/webpki.ts';
import { history, issuance, NOW } from './fixtures.ts';

const PASS: LiveProbe = { ok: true, http_status: 200, ms: 10, error: null };
const PRIVATE_CA = {
  issuer: 'Example Private CA',
  issuerDn: 'C=US, O=Example Private CA, CN=Internal Issuing CA 1',
};

describe('Baseline Requirements validity cap', () => {
  it.each([
    ['2029-03-15T00:00:00Z', 47],
    ['2027-03-15T00:00:00Z', 100],
    ['2027-03-14T23:59:59Z', 200],
    ['2026-03-15T00:00:00Z', 200],
    ['2026-03-14T23:59:59Z', 398],
    ['2020-09-01T00:00:00Z', 398],
    ['2020-08-31T23:59:59Z', 825],
    ['2018-03-01T00:00:00Z', 825],
    ['2016-01-01T00:00:00Z', 1_188],
    ['2014-01-01T00:00:00Z', 1_827],
  ])('issued %s: at most %i days', (notBefore, days) => {
    expect(maxValidityDays(new Date(notBefore))).toBe(days);
  });

  it('accepts certificates within the cap of their issue date, with a day of slack', () => {
    // Issued 2026-04-03 (after 2026-03-15): 199 and 201 days fit, 202 does not.
    expect(hasWebPkiValidity(issuance({ daysAgo: 200, lifetimeDays: 199 }))).toBe(true);
    expect(hasWebPkiValidity(issuance({ daysAgo: 200, lifetimeDays: 201 }))).toBe(true);
    expect(hasWebPkiValidity(issuance({ daysAgo: 200, lifetimeDays: 202 }))).toBe(false);
    // Issued 2025-10-20: a 398-day certificate is fine, a ten-year one is not.
    expect(hasWebPkiValidity(issuance({ daysAgo: 365, lifetimeDays: 398 }))).toBe(true);
    expect(hasWebPkiValidity(issuance({ daysAgo: 365, lifetimeDays: 3_650 }))).toBe(false);
  });
});

describe('issuances no public CA could have made', () => {
  it('never become the current certificate, hiding that the real one expired', () => {
    const real = history([98, 158, 218]);
    const tenYear = issuance({ daysAgo: 30, lifetimeDays: 2_600, ca: PRIVATE_CA, names: ['shop.com'] });
    const assessment = assessCertificates([tenYear, ...real], PASS, 'shop.com', NOW);
    expect(assessment.certificate).toMatchObject({ issuer: "Let's Encrypt", days_left: -9 });
    expect(assessment.findings.map((finding) => finding.code)).toContain('cert.expired');
    expect(assessment.history.map((entry) => entry.issuer)).not.toContain(PRIVATE_CA.issuer);
    expect(assessment.renewal.issuances_seen).toBe(3);
  });

  it('alone, leave no current certificate', () => {
    const tenYear = issuance({ daysAgo: 30, lifetimeDays: 3_650, ca: PRIVATE_CA });
    const assessment = assessCertificates([tenYear], PASS, 'shop.com', NOW);
    expect(assessment.certificate).toBeNull();
    expect(assessment.findings.map((finding) => finding.code)).toEqual(['cert.not_found']);
  });
});
