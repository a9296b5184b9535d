import { describe, expect, it } from 'vitest';
import { assessCaa, caaIssuerFinding } from '../../../../src/checks/dns/caa.ts';
import { caaClimb, relevantCaaSet } from '../../../../src/sources/doh/records/caa.ts';

const LE = { name: "Let's Encrypt", dn: "C=US, O=Let's Encrypt, CN=R11" };
const GTS = { name: 'Google Trust Services', dn: 'C=US, O=Google Trust Services, CN=WR1' };
const SECTIGO = {
  name: 'Sectigo Limited',
  dn: 'C=GB, ST=Greater Manchester, L=Salford, O=Sectigo Limited, CN=Sectigo RSA Domain Validation Secure Server CA',
};
const ZEROSSL = { name: 'ZeroSSL', dn: 'C=AT, O=ZeroSSL, CN=ZeroSSL RSA Domain Secure Site CA' };
const UNKNOWN = { name: 'Acme Regional CA', dn: 'C=XX, O=Acme Regional Trust, CN=Acme TLS 2' };
const issue = (value: string, tag = 'issue', flags = 0) => ({ flags, tag, value });

describe('CAA climb (RFC 8659 §3)', () => {
  it('lists the name and every parent up to and including the TLD', () => {
    expect(caaClimb('www.shop.healthy-shop.co.uk')).toEqual([
      'www.shop.healthy-shop.co.uk',
      'shop.healthy-shop.co.uk',
      'healthy-shop.co.uk',
      'co.uk',
      'uk',
    ]);
  });

  it('picks the set at the name itself when it has one', () => {
    const set = relevantCaaSet([
      { name: 'healthy-shop.com', records: [issue('letsencrypt.org')] },
      { name: 'com', records: [] },
    ]);
    expect(set).toEqual({ records: [issue('letsencrypt.org')], found_at: 'healthy-shop.com' });
    expect(assessCaa(set)).toEqual([]);
  });

  it('picks the closest non-empty parent', () => {
    const set = relevantCaaSet([
      { name: 'blog.healthy-shop.com', records: [] },
      { name: 'healthy-shop.com', records: [issue('pki.goog')] },
      { name: 'com', records: [issue('digicert.com')] },
    ]);
    expect(set.found_at).toBe('healthy-shop.com');
    expect(set.records).toEqual([issue('pki.goog')]);
  });

  it('reports caa.missing when no level has records', () => {
    const set = relevantCaaSet([
      { name: 'dmarc-monitor.net', records: [] },
      { name: 'net', records: [] },
    ]);
    expect(set).toEqual({ records: [], found_at: null });
    expect(assessCaa(set).map((f) => f.code)).toEqual(['caa.missing']);
  });
});

describe('caaIssuerFinding', () => {
  it('passes when the CA seen in CT is permitted', () => {
    expect(
      caaIssuerFinding([issue('letsencrypt.org'), issue('pki.goog; cansignhttpexchanges=yes')], GTS, false),
    ).toBeNull();
    expect(caaIssuerFinding([issue('letsencrypt.org; validationmethods=dns-01')], LE, false)).toBeNull();
    expect(caaIssuerFinding([issue('sectigo.com')], ZEROSSL, false)).toBeNull();
  });

  it('flags a CA that issue does not list, with the records as evidence', () => {
    const finding = caaIssuerFinding(
      [issue('pki.goog'), issue('mailto:security@healthy-shop.com', 'iodef')],
      SECTIGO,
      false,
    );
    expect(finding).toMatchObject({ code: 'caa.issuer_not_permitted', severity: 'critical' });
    expect(finding?.message).toContain('Sectigo');
    expect(finding?.evidence).toBe('0 issue "pki.goog"\n0 iodef "mailto:security@healthy-shop.com"');
  });

  it('treats issue ";" as forbidding every CA', () => {
    expect(caaIssuerFinding([issue(';')], LE, false)?.code).toBe('caa.issuer_not_permitted');
  });

  it('uses issuewild over issue for a wildcard certificate (RFC 8659 §4.3)', () => {
    const records = [issue('letsencrypt.org'), issue(';', 'issuewild')];
    expect(caaIssuerFinding(records, LE, false)).toBeNull();
    expect(caaIssuerFinding(records, LE, true)?.code).toBe('caa.issuer_not_permitted');
    const wildOnly = [issue('digicert.com'), issue('letsencrypt.org', 'issuewild')];
    expect(caaIssuerFinding(wildOnly, LE, true)).toBeNull();
    expect(caaIssuerFinding(wildOnly, LE, false)?.code).toBe('caa.issuer_not_permitted');
  });

  it('falls back to issue for a wildcard when there is no issuewild', () => {
    expect(caaIssuerFinding([issue('letsencrypt.org')], LE, true)).toBeNull();
    expect(caaIssuerFinding([issue('pki.goog')], LE, true)?.code).toBe('caa.issuer_not_permitted');
  });

  it('says nothing when the set does not restrict issuance or the CA is unknown', () => {
    expect(caaIssuerFinding([], LE, false)).toBeNull();
    expect(caaIssuerFinding([issue('mailto:security@healthy-shop.com', 'iodef')], LE, false)).toBeNull();
    expect(caaIssuerFinding([issue('letsencrypt.org')], UNKNOWN, false)).toBeNull();
  });

  it('flags an unknown critical property, which forbids issuance (RFC 8659 §4.1)', () => {
    const finding = caaIssuerFinding([issue('letsencrypt.org'), issue('x', 'tbs', 128)], LE, false);
    expect(finding?.code).toBe('caa.issuer_not_permitted');
  });
});
