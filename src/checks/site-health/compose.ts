/**
 * Site-health composition: three check outcomes → one bundle with a summary, the renewal-stall
 * verdict, the 64-day note and the cross-checks that need more than one section. Pure.
 */
import type { ValidDomain } from '../../domain/normalize.ts';
import type { CertResult } from '../cert/result.ts';
import { caaIssuerFinding } from '../dns/caa.ts';
import type { DnsResult } from '../dns/result.ts';
import type { ExpiryResult } from '../expiry/result.ts';
import { describeUpstreams, type RunOutcome, type UpstreamReport, upstreamFailureCode } from '../outcome.ts';
import { DISCLAIMER, type Finding, type Severity, type SourceReport, toTimestamp } from '../result-common.ts';
import { lifetimeNote } from './lifetime-note.ts';
import type { SiteHealthResult } from './result.ts';

/** The finding code whose presence means the cadence would break under 64-day certificates. */
const FIXED_RENEWAL_DAY = 'cert.fixed_renewal_day';

const SECTION_LABELS = { cert: 'certificate', dns: 'DNS', expiry: 'registration' } as const;
type SectionName = keyof typeof SECTION_LABELS;

export interface SiteHealthInput {
  domain: ValidDomain;
  cert: RunOutcome<CertResult>;
  dns: RunOutcome<DnsResult>;
  expiry: RunOutcome<ExpiryResult>;
  now: Date;
}

type SectionError = { error: { code: string; message: string } };

/**
 * Composes the bundle. One section without a result is a partial bundle; two or more is an upstream
 * failure (502, not settled): one section alone is not worth the bundle's price.
 */
export function composeSiteHealth(input: SiteHealthInput): RunOutcome<SiteHealthResult> {
  const { cert, dns, expiry } = input;
  const sections = { cert, dns, expiry };
  const failed = (Object.keys(sections) as SectionName[]).filter((name) => sections[name].type !== 'result');
  if (failed.length >= 2) {
    const upstreams: UpstreamReport[] = [cert, dns, expiry].flatMap((outcome) =>
      outcome.type === 'upstream_failed' ? outcome.upstreams : [],
    );
    // Input refusals only (impossible today, but not a 502) keep their own reason.
    const refusal = [cert, dns, expiry].find((outcome) => outcome.type === 'invalid_input');
    if (upstreams.length === 0 && refusal?.type === 'invalid_input') return refusal;
    return { type: 'upstream_failed', upstreams };
  }

  const certResult = cert.type === 'result' ? cert.result : null;
  const dnsResult = dns.type === 'result' ? dns.result : null;
  const caa = dnsResult && 'records' in dnsResult.caa ? dnsResult.caa : null;
  const crossFindings: Finding[] = [];
  if (certResult?.certificate && caa && caa.records.length > 0) {
    const { issuer, issuer_dn, wildcard } = certResult.certificate;
    const finding = caaIssuerFinding(caa.records, { name: issuer, dn: issuer_dn }, wildcard);
    if (finding) crossFindings.push(finding);
  }

  const results = [certResult, dnsResult, expiry.type === 'result' ? expiry.result : null].filter(
    (r) => r !== null,
  );
  const allFindings = [...results.flatMap((r) => r.findings), ...crossFindings];
  const counts = { critical: 0, warning: 0, info: 0 };
  for (const finding of allFindings) counts[finding.severity] += 1;
  const status = counts.critical > 0 ? 'critical' : counts.warning > 0 ? 'warning' : 'ok';
  const applies = certResult?.findings.some((f) => f.code === FIXED_RENEWAL_DAY) ?? false;

  return {
    type: 'result',
    result: {
      domain: input.domain.domain,
      checked_at: toTimestamp(input.now),
      summary: { status, headline: headline(input.domain.domain, allFindings, failed), counts },
      cert: sectionOrError(cert),
      dns: sectionOrError(dns),
      expiry: sectionOrError(expiry),
      partial: failed.length > 0,
      renewal_stall: certResult?.renewal.stall ?? null,
      lifetime_note: lifetimeNote(applies, certResult?.renewal.follows_ari_window ?? null),
      sources: results.flatMap((r): SourceReport[] => r.sources),
      findings: crossFindings,
      disclaimer: DISCLAIMER,
    },
  };
}

function sectionOrError<R>(outcome: RunOutcome<R>): R | SectionError {
  switch (outcome.type) {
    case 'result':
      return outcome.result;
    case 'invalid_input':
      return { error: { code: outcome.reason.code, message: outcome.reason.message } };
    case 'upstream_failed':
      return {
        error: {
          code: upstreamFailureCode(outcome.upstreams),
          message: `The data source failed: ${describeUpstreams(outcome.upstreams)}.`,
        },
      };
  }
}

const SEVERITY_RANK: Record<Severity, number> = { critical: 0, warning: 1, info: 2 };

/** One sentence an agent can show a person: the worst finding first, then what is missing. */
function headline(domain: string, findings: readonly Finding[], failed: readonly SectionName[]): string {
  const ranked = [...findings].sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity]);
  const worst = ranked[0];
  const problems = ranked.filter((f) => f.severity !== 'info');
  const missing =
    failed.length > 0
      ? ` The ${failed.map((name) => SECTION_LABELS[name]).join(' and ')} check could not be completed.`
      : '';
  if (!worst || worst.severity === 'info') {
    const scope =
      failed.length > 0 ? 'in the checks that completed' : 'across certificate, DNS and registration';
    return `${domain} looks healthy: no problems found ${scope}.${missing}`;
  }
  const more =
    problems.length > 1 ? ` (${problems.length - 1} more ${problems.length === 2 ? 'issue' : 'issues'})` : '';
  const lead = worst.severity === 'critical' ? 'needs attention now' : 'has warnings';
  return `${domain} ${lead}: ${worst.message.replace(/\.$/, '')}${more}.${missing}`;
}
