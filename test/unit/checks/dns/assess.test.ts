/** The record-level DNS findings (NS, address, MX) and the assembled result, on hand-written facts. */
import { describe, expect, it } from 'vitest';
import { assessDns } from '../../../../src/checks/dns/assess.ts';
import { dnsResultSchema } from '../../../../src/checks/dns/result.ts';
import type { DnsFacts } from '../../../../src/sources/doh/gather.ts';

const NOW = new Date('2026-11-22T10:00:00Z');

/** A mail-ready, signed apex: no record-level findings. */
function facts(overrides: Partial<DnsFacts> = {}): DnsFacts {
  return {
    domain: 'harbour-tools.com',
    ns: ['ns1.dnsimple.com', 'ns2.dnsimple-edge.net'],
    a: ['192.0.2.80'],
    aaaa: ['2001:db8::80'],
    cname: null,
    mx: [{ priority: 10, host: 'mx1.harbour-tools.com' }],
    txt: ['v=spf1 mx -all'],
    spfWalk: { lookups: 1, voidLookups: 0, includes: [], all: '-all', problems: [] },
    dmarcAtDomain: {
      name: '_dmarc.harbour-tools.com',
      txt: ['v=DMARC1; p=reject; rua=mailto:d@harbour-tools.com'],
    },
    dmarcAtOrganization: null,
    caa: { records: [{ flags: 0, tag: 'issue', value: 'letsencrypt.org' }], found_at: 'harbour-tools.com' },
    dnssec: { ad: true, ds: true, dnskey: true, bogus: false },
    mtaSts: [],
    tlsRpt: [],
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
    const result = assessDns(facts({ ns: [] }), true, NOW);
    expect(result.findings).toContainEqual(
      expect.objectContaining({ code: 'dns.no_ns', severity: 'critical' }),
    );
  });

  it('does not expect NS records at a subdomain (they live at the zone apex)', () => {
    expect(codes(assessDns(facts({ ns: [] }), false, NOW))).not.toContain('dns.no_ns');
  });

  it('dns.no_address: neither A nor AAAA is a warning; either one alone is enough', () => {
    const none = assessDns(facts({ a: [], aaaa: [] }), true, NOW);
    expect(none.findings).toContainEqual(
      expect.objectContaining({ code: 'dns.no_address', severity: 'warning' }),
    );
    expect(codes(assessDns(facts({ a: [] }), true, NOW))).not.toContain('dns.no_address');
    expect(codes(assessDns(facts({ aaaa: [] }), true, NOW))).not.toContain('dns.no_address');
  });

  it('mx.missing: no MX record is reported as information', () => {
    const result = assessDns(facts({ mx: [] }), true, NOW);
    expect(result.findings).toContainEqual(expect.objectContaining({ code: 'mx.missing', severity: 'info' }));
  });
});
