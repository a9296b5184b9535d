import { describe, expect, it } from 'vitest';
import { assessCertificates } from '../../../../src/checks/cert/assess.ts';
import { judgeCertificate, otherCaCertificate } from '../../../../src/checks/cert/judged-certificate.ts';
import type { LiveProbe } from '../../../../src/checks/cert/result.ts';
import type { ServedCertificate } from '../../../../src/checks/cert/serves-newest.ts';
import type { AriOutcome } from '../../../../src/sources/ari/lookup.ts';
import type { Issuance } from '../../../../src/sources/ct/issuance.ts';
import { history, issuance, NOW } from './fixtures.ts';

const GTS = { issuer: 'Google Trust Services', issuerDn: 'C=US, O=Google Trust Services, CN=WR1' };
const PASS: LiveProbe = { ok: true, http_status: 200, ms: 10, error: null };
const DAY_MS = 86_400_000;

const servedAs = (of: Issuance): ServedCertificate => ({
  serial: of.serial ?? '01',
  issuerDn: of.issuerDn,
  notBefore: of.notBefore,
  notAfter: of.notAfter,
});

/** The CA's answer: a window from `startDays` to `endDays` after NOW. */
const window = (startDays: number, endDays: number): AriOutcome => ({
  status: 'ok',
  ca: 'letsencrypt',
  certId: 'a.b',
  window: {
    start: new Date(NOW.getTime() + startDays * DAY_MS),
    end: new Date(NOW.getTime() + endDays * DAY_MS),
  },
  explanationUrl: null,
  checkedAt: NOW,
  call: null,
});

// The history: a Let's Encrypt certificate with 5 days left, served, its window ended 24
// days ago; a Google Trust Services certificate issued 3 days ago that the site does not serve.
const served = issuance({ daysAgo: 85 });
const ownHistory = [served, ...history([143, 204])];
const gtsNew = issuance({ daysAgo: 3, ca: GTS });

describe('judgeCertificate', () => {
  it('judges the served certificate when CT holds it, even beside a newer one of another CA', () => {
    const judged = judgeCertificate([...ownHistory, gtsNew], 'shop.com', {
      readsLeaf: true,
      leaf: servedAs(served),
    });
    expect(judged.issuance).toBe(served);
    expect(judged.field.source).toBe('served');
  });

  it("judges the served CA's newer certificate when the site renewed (renewed but not deployed)", () => {
    const renewed = issuance({ daysAgo: 2 });
    const judged = judgeCertificate([renewed, ...ownHistory], 'shop.com', {
      readsLeaf: true,
      leaf: servedAs(served),
    });
    expect(judged.issuance).toBe(renewed);
    // What is served is what `certificate` describes; the renewal is `newer_certificate`.
    expect(judged.certificate).toBe(served);
    expect(judged.field).toMatchObject({
      source: 'served',
      reason: expect.stringMatching(/older certificate/),
    });
  });

  it.each([
    ['the runtime cannot read the leaf', { readsLeaf: false, leaf: null }, /Cloudflare Workers/],
    ['the probe read none', { readsLeaf: true, leaf: null }, /no TLS handshake completed/],
  ])("judges CT's newest when %s, and says why", (_, view, reason) => {
    const judged = judgeCertificate([...ownHistory, gtsNew], 'shop.com', view);
    expect(judged.issuance).toBe(gtsNew);
    expect(judged.certificate).toBe(gtsNew);
    expect(judged.field).toEqual({ source: 'ct_newest', reason: expect.stringMatching(reason) });
  });

  it('a served leaf CT does not show yet (CT lag) is judged from the leaf itself', () => {
    const fresh = { ...servedAs(issuance({ daysAgo: 0.1 })), serial: '0badc0de', names: ['shop.com'] };
    const judged = judgeCertificate([...ownHistory, gtsNew], 'shop.com', { readsLeaf: true, leaf: fresh });
    expect(judged.field).toEqual({ source: 'served', reason: expect.stringMatching(/CT does not show/) });
    expect(judged.certificate).toMatchObject({ serial: '0badc0de', issuer: "Let's Encrypt", loggedAt: null });
    // It is its CA's newest certificate: the renewal verdict is about it too.
    expect(judged.issuance).toBe(judged.certificate);
  });

  it('a leaf for another name is described as served; the renewal verdict stays with CT', () => {
    const other = issuance({ daysAgo: 86, names: ['other.com'] });
    const judged = judgeCertificate([...ownHistory, other], 'shop.com', {
      readsLeaf: true,
      leaf: { ...servedAs(other), names: ['other.com'] },
    });
    expect(judged.field).toMatchObject({ source: 'served', reason: expect.stringMatching(/does not cover/) });
    expect(judged.certificate?.names).toEqual(['other.com']);
    expect(judged.issuance).toBe(served);
  });
});

describe('otherCaCertificate', () => {
  const judge = (trusted: Issuance[]) =>
    otherCaCertificate(
      trusted,
      'shop.com',
      judgeCertificate(trusted, 'shop.com', { readsLeaf: true, leaf: servedAs(served) }),
      NOW,
    );

  it('a first certificate of another CA after the served one: a move not deployed', () => {
    expect(judge([...ownHistory, gtsNew])).toMatchObject({
      issuer: 'Google Trust Services',
      relation: 'move_not_deployed',
      days_left: 86,
    });
  });

  it('another CA issuing side by side since before the served one: a backup', () => {
    const backups = [gtsNew, issuance({ daysAgo: 63, ca: GTS }), issuance({ daysAgo: 123, ca: GTS })];
    expect(judge([...ownHistory, ...backups])?.relation).toBe('backup');
  });

  it('a backup issued with the served certificate (within hours) is a backup from the first one', () => {
    const withIt = issuance({ daysAgo: 85 - 2 / 24, ca: GTS });
    expect(judge([...ownHistory, withIt])?.relation).toBe('backup');
  });

  it('nothing beside when no other CA is newer, or when the served certificate is not known', () => {
    expect(judge(ownHistory)).toBeNull();
    const byCt = judgeCertificate([...ownHistory, gtsNew], 'shop.com', { readsLeaf: false, leaf: null });
    expect(otherCaCertificate([...ownHistory, gtsNew], 'shop.com', byCt, NOW)).toBeNull();
  });
});

describe('assessCertificates with a newer certificate of another CA', () => {
  it("keeps the served certificate's stall and expiry (the issue's case), the other CA beside", () => {
    const result = assessCertificates(
      [...ownHistory, gtsNew],
      { ...PASS, served: servedAs(served) },
      'shop.com',
      NOW,
      window(-26, -24),
    );
    expect(result.certificate?.serial).toBe(served.serial);
    expect(result.renewal.stall).toMatchObject({ status: 'stalled', basis: 'ari' });
    expect(result.findings.map((f) => f.code).sort()).toEqual([
      'cert.ari_window_passed',
      'cert.expires_soon',
      'cert.other_ca_not_served',
      'cert.renewal_stalled',
    ]);
    expect(result.other_ca_certificate?.relation).toBe('move_not_deployed');
    expect(result.live_probe.serves_newest).toBeNull();
  });

  it('without the served leaf (Workers) judges CT newest and says so', () => {
    const result = assessCertificates(
      [...ownHistory, gtsNew],
      { ...PASS, readsLeaf: false },
      'shop.com',
      NOW,
      null,
    );
    expect(result.certificate?.serial).toBe(gtsNew.serial);
    expect(result.certificate?.issuer).toBe('Google Trust Services');
    expect(result.judged.source).toBe('ct_newest');
    expect(result.other_ca_certificate).toBeNull();
  });

  it("another CA's newer certificate is no renewal of the judged one in the ARI verdict", () => {
    const result = assessCertificates(
      [...ownHistory, gtsNew],
      { ...PASS, served: servedAs(served) },
      'shop.com',
      NOW,
      window(-1, 1),
    );
    expect(result.renewal.stall).toMatchObject({ status: 'watch', basis: 'ari' });
  });
});
