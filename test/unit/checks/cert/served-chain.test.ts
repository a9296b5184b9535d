/** The served chain judged from its dates and names (served-chain.ts), and the usual renewal point (stall.ts). */
import { describe, expect, it } from 'vitest';
import { type ChainCertificate, servedChainFindings } from '../../../../src/checks/cert/served-chain.ts';
import { assessStall } from '../../../../src/checks/cert/stall.ts';
import { unjudgedCodes } from '../../../../src/checks/cert/unjudged.ts';
import { issuance, NOW } from './fixtures.ts';

const DAY_MS = 86_400_000;
const at = (days: number) => new Date(NOW.getTime() + days * DAY_MS);

function cert(overrides: Partial<ChainCertificate> = {}): ChainCertificate {
  return {
    serial: '04aa',
    issuerDn: "C=US, O=Let's Encrypt, CN=R11",
    subjectDn: 'CN=shop.com',
    notBefore: at(-30),
    notAfter: at(60),
    names: ['shop.com'],
    selfIssued: false,
    ...overrides,
  };
}
const intermediate = (notAfter: Date) =>
  cert({ subjectDn: "C=US, O=Let's Encrypt, CN=R11", issuerDn: 'CN=ISRG Root X1', names: [], notAfter });
const codes = (findings: { code: string; severity: string }[]) =>
  Object.fromEntries(findings.map((f) => [f.code, f.severity]));

describe('servedChainFindings', () => {
  it('a healthy verified chain: nothing', () => {
    expect(
      servedChainFindings({ certificates: [cert(), intermediate(at(400))], refusal: null }, 'shop.com', NOW),
    ).toEqual([]);
  });

  it('an expired intermediate: cert.chain_expired, critical', () => {
    const findings = servedChainFindings(
      { certificates: [cert(), intermediate(at(-1))], refusal: 'tls_expired' },
      'shop.com',
      NOW,
    );
    expect(codes(findings)).toEqual({ 'cert.chain_expired': 'critical' });
  });

  it.each([
    [2, 'critical'],
    [10, 'warning'],
  ])('an intermediate ending in %i days, before the leaf: cert.chain_expires_soon %s', (days, severity) => {
    const findings = servedChainFindings(
      { certificates: [cert(), intermediate(at(days))], refusal: null },
      'shop.com',
      NOW,
    );
    expect(codes(findings)).toEqual({ 'cert.chain_expires_soon': severity });
  });

  it('an intermediate ending after the leaf, or in over 14 days: nothing', () => {
    const leaf = cert({ notAfter: at(5) });
    expect(
      servedChainFindings({ certificates: [leaf, intermediate(at(6))], refusal: null }, 'shop.com', NOW),
    ).toEqual([]);
    expect(
      servedChainFindings({ certificates: [cert(), intermediate(at(20))], refusal: null }, 'shop.com', NOW),
    ).toEqual([]);
  });

  it('a leaf for another name: cert.name_mismatch; a wildcard one level up covers it', () => {
    const other = cert({ names: ['other.com'] });
    expect(
      codes(
        servedChainFindings({ certificates: [other], refusal: 'tls_hostname_mismatch' }, 'shop.com', NOW),
      ),
    ).toEqual({
      'cert.name_mismatch': 'critical',
    });
    const wildcard = cert({ names: ['*.shop.com'] });
    expect(servedChainFindings({ certificates: [wildcard], refusal: null }, 'www.shop.com', NOW)).toEqual([]);
    expect(
      codes(servedChainFindings({ certificates: [wildcard], refusal: null }, 'a.b.shop.com', NOW)),
    ).toHaveProperty('cert.name_mismatch');
  });

  it('untrusted: cert.untrusted, saying self-signed when it is', () => {
    const selfSigned = cert({ selfIssued: true, issuerDn: 'CN=shop.com' });
    const [finding] = servedChainFindings(
      { certificates: [selfSigned], refusal: 'tls_untrusted' },
      'shop.com',
      NOW,
    );
    expect(finding).toMatchObject({
      code: 'cert.untrusted',
      severity: 'critical',
      message: expect.stringMatching(/self-signed/),
    });
  });

  it('a leaf not valid yet: cert.not_yet_valid', () => {
    const future = cert({ notBefore: at(2) });
    expect(
      codes(servedChainFindings({ certificates: [future], refusal: 'tls_not_yet_valid' }, 'shop.com', NOW)),
    ).toEqual({
      'cert.not_yet_valid': 'critical',
    });
  });
});

describe('the usual renewal point without history', () => {
  it('a 398-day certificate with 57 days left is not late; with 5 days left it is stalled', () => {
    const yearly = (daysAgo: number) => issuance({ daysAgo, lifetimeDays: 398 });
    expect(assessStall(yearly(341), null, NOW).stall.status).toBe('ok');
    expect(assessStall(yearly(393), null, NOW).stall.status).toBe('stalled');
  });

  it('a 90-day certificate keeps two-thirds (day 60, which is also 30 days before expiry)', () => {
    const current = issuance({ daysAgo: 10 });
    const expected = assessStall(current, null, NOW).expectedRenewalAt?.getTime() ?? 0;
    expect((expected - current.notBefore.getTime()) / DAY_MS).toBeCloseTo(60, 3);
  });
});

describe('unjudgedCodes', () => {
  it('names what a result could not see', () => {
    expect(unjudgedCodes({ readsLeaf: true, chainRead: true, ctSource: 'crt.sh' })).toEqual([]);
    expect(unjudgedCodes({ readsLeaf: true, chainRead: false, ctSource: 'crt.sh' })).toEqual(
      expect.arrayContaining(['cert.untrusted', 'cert.expires_soon', 'cert.lifetime_low']),
    );
    expect(unjudgedCodes({ readsLeaf: false, chainRead: false, ctSource: 'certspotter' })).not.toContain(
      'cert.expires_soon',
    );
    expect(unjudgedCodes({ readsLeaf: true, chainRead: true, ctSource: 'certspotter' })).toEqual([
      'cert.fixed_renewal_day',
    ]);
  });
});
