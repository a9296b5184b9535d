/**
 * DNSSEC status from what a validating resolver said: the AD bit, a DS set at
 * the parent, the apex DNSKEY set, and whether a SERVFAIL went away with the CD bit (bogus).
 */
import type { z } from 'zod';
import type { Finding } from '../result-common.ts';
import { DNS_FINDING, dnsFinding } from './findings.ts';
import type { dnssecSchema } from './result.ts';
import type { DnssecEvidence } from '../../sources/doh/records/dnssec.ts';

export type DnssecResult = z.infer<typeof dnssecSchema>;

export function assessDnssec(evidence: DnssecEvidence): { dnssec: DnssecResult; findings: Finding[] } {
  const { ad, ds, dnskey } = evidence;
  const status = evidence.bogus ? 'bogus' : ad && ds ? 'signed' : ds ? 'unknown' : 'unsigned';
  const findings: Finding[] = [];
  if (status === 'bogus') {
    const message = 'DNSSEC validation fails for this domain, so validating resolvers refuse to resolve it.';
    findings.push(dnsFinding(DNS_FINDING.dnssecBogus, 'critical', message));
  }
  if (status === 'unsigned') {
    const message = 'The domain is not signed with DNSSEC, so its DNS answers can be forged in transit.';
    findings.push(dnsFinding(DNS_FINDING.dnssecUnsigned, 'info', message));
  }
  return { dnssec: { status, ad, ds, dnskey }, findings };
}
