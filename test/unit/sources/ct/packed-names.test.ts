import { describe, expect, it } from 'vitest';
import { assessCertificates } from '../../../../src/checks/cert/assess.ts';
import {
  type Issuance,
  issuanceCovers,
  sameNames,
  withPackedNames,
} from '../../../../src/sources/ct/issuance.ts';
import { history, issuance as aged, NOW, SECTIGO } from '../../checks/cert/fixtures.ts';

const issuance = (names: string[]): Issuance => ({
  issuer: "Let's Encrypt",
  issuerDn: "C=US, O=Let's Encrypt, CN=R11",
  serial: null,
  notBefore: new Date('2026-10-01T07:00:00Z'),
  notAfter: new Date('2026-12-30T07:00:00Z'),
  names,
  loggedAt: null,
  crtshId: null,
  der: null,
});

describe('issuances with packed names', () => {
  it('read as the same names, in the same JSON, key order included', () => {
    const plain = issuance(['a.example.com', 'b.example.com', 'example.com']);
    const packed = withPackedNames(plain);
    expect(packed.names).toEqual(plain.names);
    expect(JSON.stringify(packed)).toBe(JSON.stringify(plain));
    expect(Object.keys(packed)).toEqual(Object.keys(plain));
    // A spread (how an issuance is copied with a field changed) carries the names as an array.
    expect({ ...packed, serial: '01' }).toEqual({ ...plain, serial: '01' });
    expect(withPackedNames(issuance([])).names).toEqual([]);
  });

  it('cover exactly the domains the plain list covers: whole lines, never a part of one', () => {
    const names = ['*.shop.example.com', 'aexample.com', 'example.com.evil.net', 'www.example.com'];
    const plain = issuance(names);
    const packed = withPackedNames(plain);
    const domains = [
      'example.com',
      'www.example.com',
      'ww.example.com',
      'w.example.com',
      'a.shop.example.com',
      'shop.example.com',
      'x.y.shop.example.com',
      'aexample.com',
      'xample.com',
      'example.com.evil.net',
      'evil.net',
      'com',
    ];
    for (const domain of domains)
      expect(issuanceCovers(packed, domain), domain).toBe(issuanceCovers(plain, domain));
    expect(domains.filter((domain) => issuanceCovers(packed, domain))).toEqual([
      'www.example.com',
      'a.shop.example.com',
      'aexample.com',
      'example.com.evil.net',
    ]);
    expect(issuanceCovers(withPackedNames(issuance([])), 'example.com')).toBe(false);
  });

  it('compare name sets alike, packed or not', () => {
    const a = ['example.com', 'www.example.com'];
    expect(sameNames(withPackedNames(issuance(a)), withPackedNames(issuance([...a])))).toBe(true);
    expect(sameNames(withPackedNames(issuance(a)), issuance([...a]))).toBe(true);
    expect(sameNames(issuance(a), issuance([...a]))).toBe(true);
    expect(sameNames(withPackedNames(issuance(a)), withPackedNames(issuance(['example.com'])))).toBe(false);
    expect(sameNames(withPackedNames(issuance(a)), issuance(['example.com', 'www.example.co']))).toBe(false);
    expect(sameNames(issuance(a), issuance(['example.com']))).toBe(false);
  });
});

describe('the cert assessment of packed issuances', () => {
  it('is byte-identical to that of the same issuances kept plain', () => {
    // Renewals with a name change, a wildcard, and a second CA's newer certificate.
    const plain = [
      ...history([150, 90, 30], { names: ['shop.com', 'www.shop.com'] }),
      ...history([120, 60], { names: ['*.shop.com', 'shop.com'] }),
      aged({ daysAgo: 2, names: ['api.shop.com', 'shop.com', 'www.shop.com'] }),
      aged({ daysAgo: 1, names: ['shop.com', 'www.shop.com'], ca: SECTIGO }),
    ];
    const newestLe = plain[5] as Issuance;
    const served = {
      serial: newestLe.serial ?? '',
      issuerDn: newestLe.issuerDn,
      notBefore: newestLe.notBefore,
      notAfter: newestLe.notAfter,
    };
    const probe = { ok: true, http_status: 200, ms: 10, error: null, served };
    // The names reach the answer: the judged certificate's and the other CA's.
    const shop = assessCertificates(
      plain.map((one) => withPackedNames(one)),
      probe,
      'shop.com',
      NOW,
    );
    expect(shop.certificate?.names).toEqual(['api.shop.com', 'shop.com', 'www.shop.com']);
    expect(shop.other_ca_certificate?.names).toEqual(['shop.com', 'www.shop.com']);
    for (const domain of ['shop.com', 'www.shop.com', 'api.shop.com', 'cdn.shop.com', 'other.com']) {
      const packed = plain.map((one) => withPackedNames(one));
      expect(JSON.stringify(assessCertificates(packed, probe, domain, NOW)), domain).toBe(
        JSON.stringify(assessCertificates(plain, probe, domain, NOW)),
      );
    }
  });
});
