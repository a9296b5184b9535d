/**
 * Turns gathered DNS facts into the dns result (docs/checks/dns.md): records as published plus the
 * SPF, DMARC, CAA, DNSSEC and renewal-readiness (`_acme-challenge`, DNS-PERSIST-01) assessments
 * and their findings. A section whose lookup failed is
 * reported as `{ error }` and yields no finding from its missing data. Pure: no I/O, no clock.
 */
import type { SourceFailure, SourceResult } from '../../sources/failure.ts';
import type { DnsFacts } from '../../sources/doh/gather.ts';
import { DISCLAIMER, type Finding, toTimestamp } from '../result-common.ts';
import { assessAcmeChallenge } from './acme-challenge.ts';
import { assessCaa } from './caa.ts';
import { assessDmarc } from './dmarc.ts';
import { assessDnssec } from './dnssec.ts';
import { DNS_FINDING, dnsFinding } from './findings.ts';
import type { DnsResult, SectionError } from './result.ts';
import { assessSpf } from './spf.ts';
import { assessValidationPersist } from './validation-persist.ts';

/** `isApex`: NS records are only expected at a zone apex, so `dns.no_ns` is only raised there. */
export function assessDns(facts: DnsFacts, isApex: boolean, checkedAt: Date): DnsResult {
  const spf = section(facts.spf, ({ txt, walk }) => assessSpf(txt, walk));
  const dmarc = section(facts.dmarc, assessDmarc);
  const dnssec = section(facts.dnssec, assessDnssec);
  const caa = section(facts.caa, (set) => ({ caa: set, findings: assessCaa(set) }));
  const acme = section(facts.acmeChallenge, (found) => assessAcmeChallenge(facts.domain, found));
  const persist = section(facts.validationPersist, (txt) =>
    assessValidationPersist(facts.domain, txt, checkedAt),
  );
  const findings: Finding[] = [
    ...recordFindings(facts, isApex),
    ...(spf.ok ? spf.value.findings : []),
    ...(dmarc.ok ? dmarc.value.findings : []),
    ...(caa.ok ? caa.value.findings : [caaLookupFailed(caa.failure)]),
    ...(dnssec.ok ? dnssec.value.findings : []),
    ...(acme.ok ? acme.value.findings : []),
    ...(persist.ok ? persist.value.findings : []),
    ...lookupFailures(facts),
  ];
  return {
    domain: facts.domain,
    checked_at: toTimestamp(checkedAt),
    sources: facts.sources,
    findings,
    disclaimer: DISCLAIMER,
    ns: reported(facts.ns),
    a: reported(facts.a),
    aaaa: reported(facts.aaaa),
    cname: reported(facts.cname),
    mx: reported(facts.mx),
    spf: spf.ok ? spf.value.spf : sectionError(spf.failure),
    dmarc: dmarc.ok ? dmarc.value.dmarc : sectionError(dmarc.failure),
    caa: caa.ok ? caa.value.caa : sectionError(caa.failure),
    dnssec: dnssec.ok ? dnssec.value.dnssec : sectionError(dnssec.failure),
    mta_sts: reported(facts.mtaSts, (txt) => txt.find((text) => /^v=STSv1(;|\s|$)/.test(text)) ?? null),
    tls_rpt: reported(facts.tlsRpt, (txt) => txt.find((text) => /^v=TLSRPTv1(;|\s|$)/.test(text)) ?? null),
    acme_challenge: acme.ok ? acme.value.acmeChallenge : sectionError(acme.failure),
    validation_persist: persist.ok ? persist.value.records : sectionError(persist.failure),
  };
}

/** Findings about records that are absent, each only when the lookup that would find them worked. */
function recordFindings(facts: DnsFacts, isApex: boolean): Finding[] {
  const findings: Finding[] = [];
  if (isApex && facts.ns.ok && facts.ns.value.length === 0) {
    findings.push(
      dnsFinding(DNS_FINDING.noNs, 'critical', 'The domain has no NS records, so it is not delegated.'),
    );
  }
  if (facts.a.ok && facts.aaaa.ok && facts.a.value.length === 0 && facts.aaaa.value.length === 0) {
    const message = 'The domain has no A or AAAA record, so browsers cannot reach a website at this name.';
    findings.push(dnsFinding(DNS_FINDING.noAddress, 'warning', message));
  }
  // A null MX ("0 .", RFC 7505) says on purpose that the domain takes no mail.
  if (facts.mx.ok && facts.mx.value.length === 0) {
    const message = 'The domain has no MX record; mail to it falls back to its address records or bounces.';
    findings.push(dnsFinding(DNS_FINDING.mxMissing, 'info', message));
  }
  return findings;
}

/** Sections other than CAA whose lookups fail: one finding naming them all. */
function lookupFailures(facts: DnsFacts): Finding[] {
  const sections = {
    NS: facts.ns,
    A: facts.a,
    AAAA: facts.aaaa,
    CNAME: facts.cname,
    MX: facts.mx,
    SPF: facts.spf,
    DMARC: facts.dmarc,
    DNSSEC: facts.dnssec,
    'MTA-STS': facts.mtaSts,
    'TLS-RPT': facts.tlsRpt,
    '_acme-challenge': facts.acmeChallenge,
    '_validation-persist': facts.validationPersist,
  };
  const failed = Object.entries(sections).flatMap(([name, result]) =>
    result.ok ? [] : [{ name, failure: result.failure }],
  );
  if (failed.length === 0) return [];
  const unreachable = failed.some(({ name }) => ['NS', 'A', 'AAAA'].includes(name));
  const message = `The ${failed.map(({ name }) => name).join(', ')} lookup${failed.length > 1 ? 's fail' : ' fails'} at both resolvers while they answer other names, so ${unreachable ? 'the domain does not resolve reliably' : 'receivers and tools get a temporary error for it'}.`;
  const evidence = failed.map(({ failure }) => failure.detail).join('\n');
  return [dnsFinding(DNS_FINDING.lookupFailed, unreachable ? 'critical' : 'warning', message, evidence)];
}

/** RFC 8659 §3 and the CA/B Baseline Requirements §3.2.2.8: a CA may not issue while CAA fails. */
function caaLookupFailed(failure: SourceFailure): Finding {
  const message =
    'The CAA lookup fails at both resolvers, and certificate authorities refuse to issue while it fails, so certificate renewals for this domain are blocked.';
  return dnsFinding(DNS_FINDING.caaLookupFailed, 'critical', message, failure.detail);
}

function section<T, U>(result: SourceResult<T>, assess: (value: T) => U): SourceResult<U> {
  return result.ok ? { ok: true, value: assess(result.value) } : result;
}

function reported<T, U = T>(
  result: SourceResult<T>,
  transform: (value: T) => U = (value) => value as unknown as U,
): U | SectionError {
  return result.ok ? transform(result.value) : sectionError(result.failure);
}

function sectionError(failure: SourceFailure): SectionError {
  return { error: { code: failure.code === 'servfail' ? 'servfail' : 'timeout', message: failure.detail } };
}
