/** Hand-written section results for site-health composition tests, shaped like real checks' output. */
import type { CertResult } from '../../../../src/checks/cert/result.ts';
import type { DnsResult } from '../../../../src/checks/dns/result.ts';
import type { ExpiryResult } from '../../../../src/checks/expiry/result.ts';
import { DISCLAIMER, type Finding } from '../../../../src/checks/result-common.ts';
import type { ValidDomain } from '../../../../src/domain/normalize.ts';

export const NOW = new Date('2026-11-22T10:00:00Z');

export const DOMAIN: ValidDomain = {
  domain: 'shop.example.com',
  unicode: 'shop.example.com',
  registrableDomain: 'example.com',
  publicSuffix: 'com',
  isApex: false,
};

const common = (
  findings: Finding[],
  name: string,
  url: string,
): Pick<CertResult, 'domain' | 'checked_at' | 'sources' | 'findings' | 'disclaimer'> => ({
  domain: DOMAIN.domain,
  checked_at: '2026-11-22T10:00:00Z',
  sources: [{ name, url, ok: true, ms: 12, cached: false }],
  findings,
  disclaimer: DISCLAIMER,
});

export function certResult(findings: Finding[] = [], overrides: Partial<CertResult> = {}): CertResult {
  return {
    ...common(findings, 'crt.sh', 'https://crt.sh'),
    certificate: {
      issuer: "Let's Encrypt",
      issuer_dn: "C=US, O=Let's Encrypt, CN=R11",
      serial: '04a1b2c3d4e5f60718293a4b5c6d7e8f9a0b',
      not_before: '2026-10-01T09:00:04Z',
      not_after: '2026-12-30T09:00:03Z',
      days_left: 38,
      lifetime_days: 90,
      percent_used: 57.8,
      names: ['shop.example.com'],
      wildcard: false,
    },
    judged: {
      source: 'served',
      reason: 'The verdict is about the certificate the site serves.',
      served_chain: 'verified',
      unjudged: [],
    },
    newer_certificate: null,
    other_ca_certificate: null,
    renewal: {
      issuances_seen: 4,
      cadence_days: 60,
      renews_at_percent: 66.7,
      expected_renewal_at: '2026-11-30T09:00:04Z',
      follows_ari_window: null,
      renew_by: '2026-12-04T21:00:04Z',
      stall: {
        status: 'ok',
        reason: 'The next renewal is expected around 2026-11-30.',
        overdue_days: null,
        basis: 'cadence',
      },
      ari: null,
    },
    history: [],
    live_probe: { ok: true, http_status: 200, ms: 80, error: null, serves_newest: true },
    ct_source: 'crt.sh',
    ...overrides,
  };
}

export function dnsResult(findings: Finding[] = [], caaIssue = 'letsencrypt.org'): DnsResult {
  return {
    ...common(findings, 'doh', 'https://cloudflare-dns.com/dns-query'),
    ns: ['ns1.example.net', 'ns2.example.net'],
    a: ['93.184.215.14'],
    aaaa: [],
    cname: null,
    mx: [{ priority: 10, host: 'mx.example.com' }],
    spf: { record: 'v=spf1 -all', valid: true, lookups: 0, void_lookups: 0, all: '-all', includes: [] },
    dmarc: {
      record: 'v=DMARC1; p=reject',
      policy: 'reject',
      subdomain_policy: null,
      pct: null,
      rua: [],
      found_at: '_dmarc.example.com',
    },
    caa: { records: [{ flags: 0, tag: 'issue', value: caaIssue }], found_at: 'example.com' },
    dnssec: { status: 'unsigned', ad: false, ds: false, dnskey: false },
    mta_sts: null,
    tls_rpt: null,
    acme_challenge: null,
    validation_persist: [],
  };
}

export function expiryResult(findings: Finding[] = []): ExpiryResult {
  return {
    ...common(findings, 'rdap', 'https://rdap.verisign.com/com/v1/'),
    registered: true,
    registrar: { name: 'Example Registrar LLC', iana_id: '9999' },
    registered_at: '2001-01-02T03:04:05Z',
    expires_at: '2027-01-02T03:04:05Z',
    updated_at: '2026-01-02T03:04:05Z',
    rdap_updated_at: '2026-01-02T04:00:00Z',
    days_left: 41,
    status: ['clientTransferProhibited'],
    status_rdap: ['client transfer prohibited'],
    nameservers: ['ns1.example.net'],
    dnssec_delegated: false,
    rdap_server: 'https://rdap.verisign.com/com/v1/',
  };
}

export const finding = (code: string, severity: Finding['severity'], message: string): Finding => ({
  code,
  severity,
  message,
});
