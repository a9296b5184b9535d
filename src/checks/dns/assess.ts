/**
 * Turns gathered DNS facts into the dns result (contract §3 "dns"): records as published plus the
 * SPF, DMARC, CAA and DNSSEC assessments and their findings. Pure: no I/O, no clock.
 */
import type { DnsFacts } from '../../sources/doh/gather.ts';
import { DISCLAIMER, type Finding, toTimestamp } from '../result-common.ts';
import { assessCaa } from './caa.ts';
import { assessDmarc } from './dmarc.ts';
import { assessDnssec } from './dnssec.ts';
import { DNS_FINDING, dnsFinding } from './findings.ts';
import type { DnsResult } from './result.ts';
import { assessSpf } from './spf.ts';

/** `isApex`: NS records are only expected at a zone apex, so `dns.no_ns` is only raised there. */
export function assessDns(facts: DnsFacts, isApex: boolean, checkedAt: Date): DnsResult {
  const spf = assessSpf(facts.txt, facts.spfWalk);
  const dmarc = assessDmarc(facts.dmarcAtDomain, facts.dmarcAtOrganization);
  const dnssec = assessDnssec(facts.dnssec);
  const findings: Finding[] = [
    ...recordFindings(facts, isApex),
    ...spf.findings,
    ...dmarc.findings,
    ...assessCaa(facts.caa),
    ...dnssec.findings,
  ];
  return {
    domain: facts.domain,
    checked_at: toTimestamp(checkedAt),
    sources: facts.sources,
    findings,
    disclaimer: DISCLAIMER,
    ns: facts.ns,
    a: facts.a,
    aaaa: facts.aaaa,
    cname: facts.cname,
    mx: facts.mx,
    spf: spf.spf,
    dmarc: dmarc.dmarc,
    caa: facts.caa,
    dnssec: dnssec.dnssec,
    mta_sts: facts.mtaSts.find((text) => /^v=STSv1(;|\s|$)/.test(text)) ?? null,
    tls_rpt: facts.tlsRpt.find((text) => /^v=TLSRPTv1(;|\s|$)/.test(text)) ?? null,
  };
}

function recordFindings(facts: DnsFacts, isApex: boolean): Finding[] {
  const findings: Finding[] = [];
  if (isApex && facts.ns.length === 0) {
    findings.push(
      dnsFinding(DNS_FINDING.noNs, 'critical', 'The domain has no NS records, so it is not delegated.'),
    );
  }
  if (facts.a.length === 0 && facts.aaaa.length === 0) {
    const message = 'The domain has no A or AAAA record, so browsers cannot reach a website at this name.';
    findings.push(dnsFinding(DNS_FINDING.noAddress, 'warning', message));
  }
  // A null MX ("0 .", RFC 7505) says on purpose that the domain takes no mail.
  if (facts.mx.length === 0) {
    const message = 'The domain has no MX record; mail to it falls back to its address records or bounces.';
    findings.push(dnsFinding(DNS_FINDING.mxMissing, 'info', message));
  }
  return findings;
}
