import { describe, expect, it } from 'vitest';
import { assessDnssec } from '../../../../src/checks/dns/dnssec.ts';

describe('DNSSEC status', () => {
  it.each([
    [{ ad: true, ds: true, dnskey: true, bogus: false }, 'signed', []],
    [{ ad: false, ds: false, dnskey: false, bogus: false }, 'unsigned', ['dnssec.unsigned']],
    [{ ad: false, ds: false, dnskey: true, bogus: false }, 'unsigned', ['dnssec.unsigned']],
    [{ ad: false, ds: true, dnskey: true, bogus: true }, 'bogus', ['dnssec.bogus']],
    [{ ad: false, ds: true, dnskey: true, bogus: false }, 'unknown', []],
  ])('%o → %s', (evidence, status, codes) => {
    const { dnssec, findings } = assessDnssec(evidence);
    expect(dnssec).toEqual({ status, ad: evidence.ad, ds: evidence.ds, dnskey: evidence.dnskey });
    expect(findings.map((f) => f.code)).toEqual(codes);
  });

  it('marks bogus as critical', () => {
    const { findings } = assessDnssec({ ad: false, ds: true, dnskey: true, bogus: true });
    expect(findings[0]?.severity).toBe('critical');
  });
});
