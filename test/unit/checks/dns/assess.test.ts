/** The record-level DNS findings (NS, address, MX) and the assembled result, on hand-written facts. */
import { describe, expect, it } from 'vitest';
import { assessDns } from '../../../../src/checks/dns/assess.ts';
import { dnsResultSchema } from '../../../../src/checks/dns/result.ts';
import type { DnsFacts } from '../../../../src/sources/doh/gather.ts';
import { fail, succeed } from '../../../../src/sources/failure.ts';

const NOW = new Date('2026-11-22T10:00:00Z');
const at = (name: string, ...txt: string[]) => ({ name, txt });

/** A mail-ready, signed apex: no record-level findings. */
function facts(overrides: Partial<DnsFacts> = {}): DnsFacts {
  return {
    domain: 'harbour-tools.com',
    ns: succeed(['ns1.dnsimple.com', 'ns2.dnsimple-edge.net']),
    a: succeed(['192.0.2.80']),
    aaaa: succeed(['2001:db8::80']),
    cname: succeed(null),
    mx: succeed([{ priority: 10, host: 'mx1.harbour-tools.com' }]),
    spf: succeed({
      txt: ['v=spf1 mx -all'],
      walk: { lookups: 1, voidLookups: 0, includes: [], all: '-all', problems: [] },
    }),
    dmarc: succeed([at('_dmarc.harbour-tools.com', 'v=DMARC1; p=reject; rua=mailto:d@harbour-tools.com')]),
    caa: succeed({
      records: [{ flags: 0, tag: 'issue', value: 'letsencrypt.org' }],
      found_at: 'harbour-tools.com',
    }),
    dnssec: succeed({ ad: true, ds: true, dnskey: true, bogus: false }),
    mtaSts: succeed([]),
    tlsRpt: succeed([]),
    acmeChallenge: succeed({ txt: [], cname: null }),
    validationPersist: succeed([]),
    sources: [{ name: 'doh', url: 'https://cloudflare-dns.com/dns-query', ok: true, ms: 18, cached: false }],
    ...overrides,
  };
}

const codes = (result: ReturnType<typeof assessDns>) => result.findings.map((f) => f.code);

describe('assessDns record findings', () => {
  it('raises nothing for a delegated apex with addresses and MX, and validates against the schema', () => {
    const result = assessDns(facts(), true, NOW);
    expect(dnsResultSchema.parse(result)).toEqual(result);
    expect(codes(result)).toEqual([]);
    expect(result.checked_at).toBe('2026-11-22T10:00:00Z');
  });

  it('dns.no_ns: an apex without NS records is critical', () => {
    const result = assessDns(facts({ ns: succeed([]) }), true, NOW);
    expect(result.findings).toContainEqual(
      expect.objectContaining({ code: 'dns.no_ns', severity: 'critical' }),
    );
  });

  it('does not expect NS records at a subdomain (they live at the zone apex)', () => {
    expect(codes(assessDns(facts({ ns: succeed([]) }), false, NOW))).not.toContain('dns.no_ns');
  });

  it('dns.no_address: neither A nor AAAA is a warning; either one alone is enough', () => {
    const none = assessDns(facts({ a: succeed([]), aaaa: succeed([]) }), true, NOW);
    expect(none.findings).toContainEqual(
      expect.objectContaining({ code: 'dns.no_address', severity: 'warning' }),
    );
    expect(codes(assessDns(facts({ a: succeed([]) }), true, NOW))).not.toContain('dns.no_address');
    expect(codes(assessDns(facts({ aaaa: succeed([]) }), true, NOW))).not.toContain('dns.no_address');
  });

  it('mx.missing: no MX record is reported as information', () => {
    const result = assessDns(facts({ mx: succeed([]) }), true, NOW);
    expect(result.findings).toContainEqual(expect.objectContaining({ code: 'mx.missing', severity: 'info' }));
  });
});

const servfail = (name: string) =>
  fail({ code: 'servfail', source: 'doh', detail: `doh answered SERVFAIL for ${name}` });

describe('assessDns: a lookup that fails at working resolvers fails only its section', () => {
  it('reports a failed CAA lookup as caa.lookup_failed, not caa.missing, and keeps the other sections', () => {
    const result = assessDns(facts({ caa: servfail('harbour-tools.com CAA') }), true, NOW);
    expect(dnsResultSchema.parse(result)).toEqual(result);
    expect(result.caa).toEqual({
      error: { code: 'servfail', message: 'doh answered SERVFAIL for harbour-tools.com CAA' },
    });
    expect(result.findings).toEqual([
      expect.objectContaining({ code: 'caa.lookup_failed', severity: 'critical' }),
    ]);
    expect(result.spf).toMatchObject({ record: 'v=spf1 mx -all', valid: true });
    expect(result.dmarc).toMatchObject({ policy: 'reject' });
  });

  it('draws no finding from missing data: no dns.no_address, mx.missing or spf.missing for failed lookups', () => {
    const timeout = fail({ code: 'timeout', source: 'doh', detail: 'doh did not answer within 3000 ms' });
    const result = assessDns(
      facts({ a: servfail('harbour-tools.com A'), aaaa: succeed([]), mx: timeout, spf: timeout }),
      true,
      NOW,
    );
    expect(dnsResultSchema.parse(result)).toEqual(result);
    expect(result.a).toEqual({ error: expect.objectContaining({ code: 'servfail' }) });
    expect(result.mx).toEqual({ error: expect.objectContaining({ code: 'timeout' }) });
    expect(result.spf).toEqual({ error: expect.objectContaining({ code: 'timeout' }) });
    expect(codes(result)).toEqual(['dns.lookup_failed']);
    expect(result.findings[0]).toMatchObject({
      severity: 'critical',
      message: expect.stringContaining('A, MX, SPF'),
    });
  });

  it('rates failed mail-only lookups a warning', () => {
    const result = assessDns(facts({ dmarc: servfail('_dmarc.harbour-tools.com TXT') }), true, NOW);
    expect(result.findings).toEqual([
      expect.objectContaining({ code: 'dns.lookup_failed', severity: 'warning' }),
    ]);
  });
});

describe('assessDns: renewal readiness (_acme-challenge, DNS-PERSIST-01)', () => {
  it('reports nothing there as null and an empty list, with no finding', () => {
    const result = dnsResultSchema.parse(assessDns(facts(), true, NOW));
    expect(result.acme_challenge).toBeNull();
    expect(result.validation_persist).toEqual([]);
  });

  it('reports the CNAME, the parsed records and their findings, judged at checked_at', () => {
    const inTenDays = Math.floor(NOW.getTime() / 1000) + 10 * 86_400;
    const result = assessDns(
      facts({
        acmeChallenge: succeed({ txt: [], cname: 'x.auth.acme-dns.io' }),
        validationPersist: succeed([
          `letsencrypt.org; accounturi=https://acme-v02.api.letsencrypt.org/acme/acct/1; persistUntil=${inTenDays}`,
        ]),
      }),
      true,
      NOW,
    );
    expect(dnsResultSchema.parse(result)).toEqual(result);
    expect(result.acme_challenge).toEqual({ txt: [], cname: 'x.auth.acme-dns.io' });
    expect(result.validation_persist).toEqual([
      {
        issuer: 'letsencrypt.org',
        account_uri: 'https://acme-v02.api.letsencrypt.org/acme/acct/1',
        policy: null,
        persist_until: '2026-12-02T10:00:00Z',
      },
    ]);
    expect(codes(result)).toEqual(['dns.acme_challenge_present', 'dns.validation_persist_expiring']);
  });

  it('a failed _acme-challenge or _validation-persist lookup is a section error named in dns.lookup_failed', () => {
    const result = assessDns(
      facts({
        acmeChallenge: servfail('_acme-challenge.harbour-tools.com TXT'),
        validationPersist: servfail('_validation-persist.harbour-tools.com TXT'),
      }),
      true,
      NOW,
    );
    expect(dnsResultSchema.parse(result)).toEqual(result);
    expect(result.acme_challenge).toEqual({ error: expect.objectContaining({ code: 'servfail' }) });
    expect(result.validation_persist).toEqual({ error: expect.objectContaining({ code: 'servfail' }) });
    expect(result.findings).toEqual([
      expect.objectContaining({
        code: 'dns.lookup_failed',
        severity: 'warning',
        message: expect.stringContaining('_acme-challenge, _validation-persist lookups fail'),
      }),
    ]);
  });
});
