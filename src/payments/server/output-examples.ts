/**
 * One illustrative result per paid operation, published as the bazaar `output.example` in each 402
 *. Typed against the result schemas; a unit test validates them too.
 */
import type { PaidOperationId } from '../../catalog.ts';
import type { CertResult } from '../../checks/cert/result.ts';
import type { DnsResult } from '../../checks/dns/result.ts';
import type { ExpiryResult } from '../../checks/expiry/result.ts';
import { DISCLAIMER } from '../../checks/result-common.ts';
import { lifetimeNote } from '../../checks/site-health/lifetime-note.ts';
import type { SiteHealthResult } from '../../checks/site-health/result.ts';

const CHECKED_AT = '2026-11-22T10:00:00Z';

const certExample: CertResult = {
  domain: 'example.com',
  checked_at: CHECKED_AT,
  sources: [
    { name: 'crt.sh', url: 'https://crt.sh', ok: true, ms: 840, cached: false },
    { name: 'probe', url: 'https://example.com:443', ok: true, ms: 120, cached: false },
    {
      name: 'ari',
      url: 'https://acme-v02.api.letsencrypt.org/acme/renewal-info',
      ok: true,
      ms: 0,
      cached: true,
    },
  ],
  findings: [],
  disclaimer: DISCLAIMER,
  certificate: {
    issuer: "Let's Encrypt",
    issuer_dn: "C=US, O=Let's Encrypt, CN=R11",
    serial: '04a1b2c3d4e5f60718293a4b5c6d7e8f9012',
    not_before: '2026-10-01T08:00:00Z',
    not_after: '2026-12-30T08:00:00Z',
    days_left: 37,
    lifetime_days: 90,
    percent_used: 58.9,
    names: ['example.com', 'www.example.com'],
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
    issuances_seen: 6,
    cadence_days: 60,
    renews_at_percent: 66.7,
    expected_renewal_at: '2026-11-30T08:00:00Z',
    follows_ari_window: true,
    renew_by: '2026-11-30T20:00:00Z',
    stall: {
      status: 'ok',
      reason:
        "The CA's renewal window for the current certificate runs 2026-11-29 to 2026-11-30; renew by 2026-11-30.",
      overdue_days: null,
      basis: 'ari',
    },
    ari: {
      status: 'ok',
      ca: 'letsencrypt',
      cert_id: 'kydGmAOpUWiOmNbEQkjbI79YlNI.BKGyw9Tl9gcYKTpLXG1-j5AS',
      window: { start: '2026-11-29T20:00:00Z', end: '2026-11-30T20:00:00Z' },
      explanation_url: null,
      checked_at: '2026-11-22T09:12:00Z',
    },
  },
  history: [
    {
      issuer: "Let's Encrypt",
      serial: '04a1b2c3d4e5f60718293a4b5c6d7e8f9012',
      not_before: '2026-10-01T08:00:00Z',
      not_after: '2026-12-30T08:00:00Z',
    },
  ],
  live_probe: { ok: true, http_status: 200, ms: 120, error: null, serves_newest: true },
  ct_source: 'crt.sh',
};

const dnsExample: DnsResult = {
  domain: 'example.com',
  checked_at: CHECKED_AT,
  sources: [{ name: 'doh', url: 'https://cloudflare-dns.com/dns-query', ok: true, ms: 95, cached: false }],
  findings: [
    {
      code: 'dmarc.policy_none',
      severity: 'warning',
      message: 'The DMARC policy is p=none, so spoofed mail is reported but not rejected.',
      evidence: 'v=DMARC1; p=none; rua=mailto:dmarc@example.com',
    },
  ],
  disclaimer: DISCLAIMER,
  ns: ['a.iana-servers.net', 'b.iana-servers.net'],
  a: ['93.184.215.14'],
  aaaa: ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  cname: null,
  mx: [{ priority: 10, host: 'mail.example.com' }],
  spf: { record: 'v=spf1 -all', valid: true, lookups: 0, void_lookups: 0, all: '-all', includes: [] },
  dmarc: {
    record: 'v=DMARC1; p=none; rua=mailto:dmarc@example.com',
    policy: 'none',
    subdomain_policy: null,
    pct: null,
    rua: ['mailto:dmarc@example.com'],
    found_at: '_dmarc.example.com',
  },
  caa: { records: [{ flags: 0, tag: 'issue', value: 'letsencrypt.org' }], found_at: 'example.com' },
  dnssec: { status: 'signed', ad: true, ds: true, dnskey: true },
  mta_sts: null,
  tls_rpt: null,
  acme_challenge: null,
  validation_persist: [
    {
      issuer: 'letsencrypt.org',
      account_uri: 'https://acme-v02.api.letsencrypt.org/acme/acct/2187654321',
      policy: 'wildcard',
      persist_until: '2027-11-22T00:00:00Z',
    },
  ],
};

const expiryExample: ExpiryResult = {
  domain: 'example.com',
  checked_at: CHECKED_AT,
  sources: [{ name: 'rdap', url: 'https://rdap.verisign.com/com/v1', ok: true, ms: 210, cached: false }],
  findings: [],
  disclaimer: DISCLAIMER,
  registered: true,
  registrar: { name: 'RESERVED-Internet Assigned Numbers Authority', iana_id: '376' },
  registered_at: '1995-08-14T04:00:00Z',
  expires_at: '2027-08-13T04:00:00Z',
  updated_at: '2026-08-14T07:01:34Z',
  rdap_updated_at: '2026-11-22T09:58:12Z',
  days_left: 264,
  status: ['clientDeleteProhibited', 'clientTransferProhibited', 'clientUpdateProhibited'],
  status_rdap: ['client delete prohibited', 'client transfer prohibited', 'client update prohibited'],
  nameservers: ['a.iana-servers.net', 'b.iana-servers.net'],
  dnssec_delegated: true,
  rdap_server: 'https://rdap.verisign.com/com/v1',
};

const siteHealthExample: SiteHealthResult = {
  domain: 'example.com',
  checked_at: CHECKED_AT,
  summary: {
    status: 'warning',
    headline: 'example.com is healthy apart from one warning: its DMARC policy does not reject spoofed mail.',
    counts: { critical: 0, warning: 1, info: 0 },
  },
  cert: certExample,
  dns: dnsExample,
  expiry: expiryExample,
  partial: false,
  renewal_stall: certExample.renewal.stall,
  lifetime_note: lifetimeNote(false),
  sources: [...certExample.sources, ...dnsExample.sources, ...expiryExample.sources],
  findings: [],
  disclaimer: DISCLAIMER,
};

const examples: Record<PaidOperationId, unknown> = {
  v1_cert: certExample,
  v1_dns: dnsExample,
  v1_expiry: expiryExample,
  v1_site_health: siteHealthExample,
};

/** The published example result of `operation`. */
export function outputExampleFor(operation: PaidOperationId): unknown {
  return examples[operation];
}
