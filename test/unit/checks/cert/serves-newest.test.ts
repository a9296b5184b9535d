import { describe, expect, it } from 'vitest';
import { assessCertificates } from '../../../../src/checks/cert/assess.ts';
import type { LiveProbe } from '../../../../src/checks/cert/result.ts';
import {
  compareServed,
  DEPLOY_GRACE_MS,
  SAME_RENEWAL_MS,
  type ServedCertificate,
} from '../../../../src/checks/cert/serves-newest.ts';
import type { Issuance } from '../../../../src/sources/ct/issuance.ts';
import { issuance, NOW, SECTIGO } from './fixtures.ts';

const HOUR_MS = 3_600_000;
const PASS: LiveProbe = { ok: true, http_status: 200, ms: 10, error: null };

/** The served leaf as the runner reads it from the DER: the same serial, issuer and dates as `of`. */
function servedAs(of: Issuance, serial = of.serial ?? '01'): ServedCertificate {
  return { serial, issuerDn: of.issuerDn, notBefore: of.notBefore, notAfter: of.notAfter };
}

/** An issuance logged `hoursAgo` before NOW (its notBefore an hour earlier, as Let's Encrypt backdates). */
function loggedHoursAgo(hoursAgo: number, names?: string[]): Issuance {
  const base = issuance({ daysAgo: (hoursAgo + 1) / 24, names });
  return { ...base, loggedAt: new Date(NOW.getTime() - hoursAgo * HOUR_MS) };
}

describe('compareServed', () => {
  const old = issuance({ daysAgo: 60 });

  it('is true when the served leaf is the newest trusted certificate in CT', () => {
    const newest = issuance({ daysAgo: 5 });
    expect(compareServed(servedAs(newest), [newest, old], 'shop.com', NOW)).toEqual({
      servesNewest: true,
      successor: null,
    });
  });

  it('is false, naming the successor, when CT holds a newer one issued more than the grace period ago', () => {
    const earlierRenewal = issuance({ daysAgo: 30 });
    const newest = loggedHoursAgo(DEPLOY_GRACE_MS / HOUR_MS + 1);
    const result = compareServed(servedAs(old), [earlierRenewal, newest, old], 'shop.com', NOW);
    expect(result).toEqual({ servesNewest: false, successor: newest });
  });

  it('is null while the only newer certificate is still within the grace period', () => {
    const fresh = loggedHoursAgo(DEPLOY_GRACE_MS / HOUR_MS - 1);
    expect(compareServed(servedAs(old), [fresh, old], 'shop.com', NOW)).toEqual({
      servesNewest: null,
      successor: null,
    });
  });

  it('judges the grace period by the CT log time, falling back to notBefore', () => {
    const justOver = { ...loggedHoursAgo(6), loggedAt: new Date(NOW.getTime() - DEPLOY_GRACE_MS - 1_000) };
    expect(compareServed(servedAs(old), [justOver, old], 'shop.com', NOW).servesNewest).toBe(false);
    const unlogged = { ...issuance({ daysAgo: 0.2 }), loggedAt: null };
    expect(compareServed(servedAs(old), [unlogged, old], 'shop.com', NOW).servesNewest).toBeNull();
  });

  it('treats a certificate issued with the served one (ECDSA beside RSA) as the same renewal', () => {
    const rsa = issuance({ daysAgo: 10 });
    const ecdsa = {
      ...rsa,
      serial: '04beef',
      notBefore: new Date(rsa.notBefore.getTime() + SAME_RENEWAL_MS / 2),
    };
    expect(compareServed(servedAs(rsa), [ecdsa, rsa], 'shop.com', NOW).servesNewest).toBe(true);
  });

  it('matches a served final certificate to the precertificate CT merged it with (same issuer and serial)', () => {
    // crt.sh reports the pair as one issuance with one serial; the served DER has the final certificate's.
    const pair = { ...issuance({ daysAgo: 5 }), serial: '04a1b2c3' };
    expect(compareServed(servedAs(pair, '04a1b2c3'), [pair], 'shop.com', NOW).servesNewest).toBe(true);
  });

  it('ignores the leading 00 byte of a serial with the high bit set, on either side', () => {
    const highBit = { ...issuance({ daysAgo: 5 }), serial: '00f1e2d3' };
    expect(compareServed(servedAs(highBit, 'f1e2d3'), [highBit], 'shop.com', NOW).servesNewest).toBe(true);
    const printedWithout = { ...highBit, serial: 'f1e2d3' };
    expect(compareServed(servedAs(highBit, '00f1e2d3'), [printedWithout], 'shop.com', NOW).servesNewest).toBe(
      true,
    );
  });

  it('does not take a certificate of another CA with the same serial for the served one', () => {
    const newest = issuance({ daysAgo: 5 });
    const served = { ...servedAs(newest), issuerDn: SECTIGO.issuerDn };
    expect(compareServed(served, [newest], 'shop.com', NOW).servesNewest).toBeNull();
  });

  it("never calls a newer certificate of another CA a successor (a CDN's backup certificate, an origin's own)", () => {
    const served = issuance({ daysAgo: 30 });
    const otherCa = { ...issuance({ daysAgo: 3 }), ...SECTIGO, serial: '0badcafe' };
    expect(compareServed(servedAs(served), [otherCa, served], 'shop.com', NOW)).toEqual({
      servesNewest: null,
      successor: null,
    });
    // A newer one of the served certificate's own CA still is.
    const renewed = issuance({ daysAgo: 2 });
    expect(compareServed(servedAs(served), [otherCa, renewed, served], 'shop.com', NOW)).toEqual({
      servesNewest: false,
      successor: renewed,
    });
  });

  it('matches by validity period when the CT source has no serial', () => {
    const newest = { ...issuance({ daysAgo: 5 }), serial: null };
    expect(compareServed(servedAs(newest, '04ff'), [newest], 'shop.com', NOW).servesNewest).toBe(true);
    const shifted = { ...servedAs(newest, '04ff'), notBefore: new Date(newest.notBefore.getTime() - 1_000) };
    expect(compareServed(shifted, [newest], 'shop.com', NOW).servesNewest).toBeNull();
  });

  it('counts a newer wildcard certificate covering the name as a successor', () => {
    const wildcard = issuance({ daysAgo: 3, names: ['*.shop.com'] });
    const served = issuance({ daysAgo: 50, names: ['api.shop.com'] });
    const result = compareServed(servedAs(served), [wildcard, served], 'api.shop.com', NOW);
    expect(result).toEqual({ servesNewest: false, successor: wildcard });
  });

  it('is true for a served wildcard certificate that is the newest covering the name', () => {
    const wildcard = issuance({ daysAgo: 3, names: ['*.shop.com'] });
    const older = issuance({ daysAgo: 50, names: ['api.shop.com'] });
    expect(compareServed(servedAs(wildcard), [wildcard, older], 'api.shop.com', NOW).servesNewest).toBe(true);
  });

  it('ignores newer certificates that do not cover the name (another subdomain, a wildcard two levels up)', () => {
    const served = issuance({ daysAgo: 50, names: ['api.shop.com'] });
    const sibling = issuance({ daysAgo: 3, names: ['www.shop.com'] });
    const tooHigh = issuance({ daysAgo: 3, names: ['*.shop.com'] });
    const result = compareServed(servedAs(served), [sibling, tooHigh, served], 'v2.api.shop.com', NOW);
    expect(result.servesNewest).toBeNull(); // the served one does not cover v2.api.shop.com either
    expect(compareServed(servedAs(served), [sibling, served], 'api.shop.com', NOW).servesNewest).toBe(true);
  });

  it('is null with no served leaf (the Worker, a failed handshake) or one CT does not show', () => {
    const newest = issuance({ daysAgo: 5 });
    expect(compareServed(null, [newest], 'shop.com', NOW).servesNewest).toBeNull();
    expect(compareServed(servedAs(newest, '0999'), [newest], 'shop.com', NOW).servesNewest).toBeNull();
    expect(compareServed(servedAs(newest), [], 'shop.com', NOW).servesNewest).toBeNull();
  });
});

describe('assessCertificates: renewed but not deployed', () => {
  const old = issuance({ daysAgo: 60 });
  const renewed = issuance({ daysAgo: 2 });

  it('reports serves_newest false with a cert.renewed_not_deployed finding giving both certificates', () => {
    const assessment = assessCertificates(
      [renewed, old],
      { ...PASS, served: servedAs(old) },
      'shop.com',
      NOW,
    );
    expect(assessment.live_probe).toEqual({ ...PASS, serves_newest: false });
    const finding = assessment.findings.find((item) => item.code === 'cert.renewed_not_deployed');
    expect(finding).toMatchObject({ severity: 'warning' });
    expect(finding?.message).toContain('shop.com still serves a certificate issued on 2026-08-21');
    expect(finding?.message).toContain("a newer one from Let's Encrypt was issued 47 hours ago");
    expect(finding?.evidence).toBe(
      `served serial ${old.serial} not_before 2026-08-21T12:00:00Z; newest in CT serial ${renewed.serial} not_before 2026-10-18T12:00:00Z`,
    );
    // The probe's pass/fail is untouched.
    expect(assessment.findings.some((item) => item.code === 'probe.failed')).toBe(false);
  });

  it('reports serves_newest true and no finding when the newest is served', () => {
    const assessment = assessCertificates(
      [renewed, old],
      { ...PASS, served: servedAs(renewed) },
      'shop.com',
      NOW,
    );
    expect(assessment.live_probe.serves_newest).toBe(true);
    expect(assessment.findings.map((item) => item.code)).not.toContain('cert.renewed_not_deployed');
  });

  it('reports serves_newest null without a served leaf, and never the leaf itself', () => {
    const assessment = assessCertificates([renewed, old], PASS, 'shop.com', NOW);
    expect(assessment.live_probe).toEqual({ ...PASS, serves_newest: null });
    expect(Object.keys(assessment.live_probe)).not.toContain('served');
  });

  it('leaves out certificates no public CA could issue (a ten-year one) as successors', () => {
    const tenYear = issuance({ daysAgo: 1, lifetimeDays: 3_650 });
    const assessment = assessCertificates(
      [tenYear, renewed],
      { ...PASS, served: servedAs(renewed) },
      'shop.com',
      NOW,
    );
    expect(assessment.live_probe.serves_newest).toBe(true);
  });
});
