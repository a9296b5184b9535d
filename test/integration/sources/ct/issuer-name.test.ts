/**
 * One friendly issuer name per CA whichever aggregator answered: the table on real issuer DNs, its
 * agreement with the CAA cross-check's CA table, and the two fakes answering for one certificate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identifyCa } from '../../../../src/checks/dns/ca-identifiers.ts';
import { fetchCertspotterIssuances } from '../../../../src/sources/ct/certspotter.ts';
import { fetchCrtshIssuances } from '../../../../src/sources/ct/crtsh.ts';
import { issuerFriendlyName } from '../../../../src/sources/ct/issuer-name.ts';
import { type CertspotterFake, startCertspotter } from '../../../world/certspotter.ts';
import { type CrtshFake, startCrtsh } from '../../../world/crtsh.ts';
import { loopbackFetch, NOW, scenarioMap } from './world.ts';

/** [issuer DN as crt.sh prints it, friendly name, a CAA identifier the CA accepts] */
const REAL_ISSUERS: [dn: string, name: string, caa: string][] = [
  ["C=US, O=Let's Encrypt, CN=R11", "Let's Encrypt", 'letsencrypt.org'],
  ["C=US, O=Let's Encrypt, CN=E8", "Let's Encrypt", 'letsencrypt.org'],
  ['C=US, O=Internet Security Research Group, CN=ISRG Root X1', "Let's Encrypt", 'letsencrypt.org'],
  ['C=US, O=DigiCert Inc, CN=DigiCert Global G2 TLS RSA SHA256 2020 CA1', 'DigiCert', 'digicert.com'],
  ['C=US, O=DigiCert Inc, OU=www.digicert.com, CN=GeoTrust TLS RSA CA G1', 'DigiCert', 'digicert.com'],
  [
    'C=US, O=DigiCert Inc, OU=www.digicert.com, CN=Encryption Everywhere DV TLS CA - G2',
    'DigiCert',
    'digicert.com',
  ],
  ['C=US, O="Cloudflare, Inc.", CN=Cloudflare Inc ECC CA-3', 'DigiCert', 'digicert.com'],
  ['C=US, O="CloudFlare, Inc.", CN=CloudFlare Inc RSA CA-2', 'DigiCert', 'digicert.com'],
  [
    'C=GB, ST=Greater Manchester, L=Salford, O=Sectigo Limited, CN=Sectigo RSA Domain Validation Secure Server CA',
    'Sectigo',
    'sectigo.com',
  ],
  [
    'C=GB, ST=Greater Manchester, L=Salford, O=COMODO CA Limited, CN=COMODO RSA Domain Validation Secure Server CA',
    'Sectigo',
    'sectigo.com',
  ],
  ['C=US, O=Google Trust Services, CN=WR1', 'Google Trust Services', 'pki.goog'],
  ['C=US, O=Google Trust Services LLC, CN=GTS CA 1C3', 'Google Trust Services', 'pki.goog'],
  ['C=US, O=Amazon, CN=Amazon RSA 2048 M02', 'Amazon', 'amazon.com'],
  ['C=BE, O=GlobalSign nv-sa, CN=GlobalSign GCC R3 DV TLS CA 2020', 'GlobalSign', 'globalsign.com'],
  [
    'C=US, ST=Arizona, L=Scottsdale, O="GoDaddy.com, Inc.", OU=http://certs.godaddy.com/repository/, CN=Go Daddy Secure Certificate Authority - G2',
    'GoDaddy',
    'godaddy.com',
  ],
  [
    'C=US, ST=Arizona, L=Scottsdale, O="Starfield Technologies, Inc.", OU=http://certs.starfieldtech.com/repository/, CN=Starfield Secure Certificate Authority - G2',
    'GoDaddy',
    'starfieldtech.com',
  ],
  [
    'C=US, O="Entrust, Inc.", OU=See www.entrust.net/legal-terms, OU="(c) 2012 Entrust, Inc. - for authorized use only", CN=Entrust Certification Authority - L1K',
    'Entrust',
    'entrust.net',
  ],
  ['C=US, O=Microsoft Corporation, CN=Microsoft Azure RSA TLS Issuing CA 03', 'Microsoft', 'microsoft.com'],
  ['C=AT, O=ZeroSSL, CN=ZeroSSL RSA Domain Secure Site CA', 'ZeroSSL', 'sectigo.com'],
  ['C=NO, O=Buypass AS-983163327, CN=Buypass Class 2 CA 5', 'Buypass', 'buypass.com'],
  ['C=US, ST=Texas, L=Houston, O=SSL Corp, CN=SSL.com RSA SSL subCA', 'SSL.com', 'ssl.com'],
  ['C=US, ST=Texas, L=Houston, O=SSL Corporation, CN=SSL.com TLS RSA Root CA 2022', 'SSL.com', 'ssl.com'],
];

describe('issuer friendly names', () => {
  it.each(REAL_ISSUERS)('%s → %s', (dn, name) => {
    expect(issuerFriendlyName(dn)).toBe(name);
  });

  it.each(REAL_ISSUERS)('%s still maps to its CAA identifiers', (dn, name, caa) => {
    expect(identifyCa({ name: issuerFriendlyName(dn), dn })?.identifiers).toContain(caa);
    expect(identifyCa({ name, dn: '' })?.identifiers).toContain(caa);
  });

  it('falls back to the organisation as printed, then the CN, then the whole DN', () => {
    expect(issuerFriendlyName('C=DE, O="Beispiel CA, GmbH", CN=Beispiel Issuing CA 1')).toBe(
      'Beispiel CA, GmbH',
    );
    expect(issuerFriendlyName('CN=Internal Issuing CA')).toBe('Internal Issuing CA');
    expect(issuerFriendlyName('Issuer Not Found')).toBe('Issuer Not Found');
  });
});

describe('one name whichever aggregator answered', () => {
  const sameCertificates = {
    domain: 'two-cas.net',
    about: 'Live certificates from the Cloudflare-branded DigiCert intermediate and from Sectigo.',
    ct: {
      certificates: [
        { issuer: 'cloudflare' as const, names: ['two-cas.net', '*.two-cas.net'], issuedDaysAgo: 10 },
        { issuer: 'sectigo' as const, names: ['two-cas.net'], issuedDaysAgo: 40, lifetimeDays: 180 },
      ],
    },
  };
  let crtsh: CrtshFake;
  let certspotter: CertspotterFake;
  beforeAll(async () => {
    const scenarios = scenarioMap(sameCertificates);
    crtsh = await startCrtsh(scenarios, { now: () => NOW });
    certspotter = await startCertspotter(scenarios, { now: () => NOW });
  });
  afterAll(async () => {
    await crtsh.close();
    await certspotter.close();
  });

  it('crt.sh and Cert Spotter give the same issuer names for the same certificates', async () => {
    const call = { fetch: loopbackFetch, timeoutMs: 2_000 };
    const fromCrtsh = await fetchCrtshIssuances('two-cas.net', { ...call, baseUrl: crtsh.url });
    const fromCertspotter = await fetchCertspotterIssuances('two-cas.net', {
      ...call,
      baseUrl: certspotter.url,
    });
    if (!fromCrtsh.ok || !fromCertspotter.ok) throw new Error('expected answers from both fakes');
    const issuers = (issuances: { issuer: string }[]) => issuances.map((issuance) => issuance.issuer);
    expect(issuers(fromCrtsh.value)).toEqual(['DigiCert', 'Sectigo']);
    expect(issuers(fromCertspotter.value)).toEqual(issuers(fromCrtsh.value));
  });
});
