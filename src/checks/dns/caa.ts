/**
 * CAA (RFC 8659): what the relevant record set (sources/doh/records/caa.ts) permits, and whether the
 * CA seen in CT may issue again for the domain.
 */
import type { Finding } from '../result-common.ts';
import { identifyCa } from './ca-identifiers.ts';
import { DNS_FINDING, dnsFinding } from './findings.ts';
import type { CaaRecord, CaaSet } from '../../sources/doh/records/caa.ts';

/** Flag bit 128: a CA that does not understand the tag must not issue (RFC 8659 §4.1). */
const ISSUER_CRITICAL = 128;
const KNOWN_TAGS = ['issue', 'issuewild', 'iodef', 'issuemail', 'issuevmc', 'contactemail', 'contactphone'];

export function assessCaa(set: CaaSet): Finding[] {
  if (set.found_at !== null) return [];
  const message =
    'No CAA record is published, so any certificate authority may issue certificates for this domain.';
  return [dnsFinding(DNS_FINDING.caaMissing, 'info', message)];
}

/**
 * Whether the CA that issued the domain's current certificate (as CT names it) may issue again
 * under `records`: a `caa.issuer_not_permitted` finding, or null when it may, when the set does
 * not restrict issuance, or when the CA is not one this service can map to CAA identifiers.
 * `wildcard` selects `issuewild`, which overrides `issue` for wildcard names (RFC 8659 §4.3).
 */
export function caaIssuerFinding(
  records: readonly CaaRecord[],
  issuer: { name: string; dn: string },
  wildcard: boolean,
): Finding | null {
  const ca = identifyCa(issuer);
  if (!ca) return null;
  const evidence = records.map(presentation).join('\n');
  const blocking = records.find(
    (record) => record.flags & ISSUER_CRITICAL && !KNOWN_TAGS.includes(record.tag),
  );
  if (blocking) {
    const message = `CAA has a critical property "${blocking.tag}" no CA understands, so ${ca.name} may not issue for this domain.`;
    return dnsFinding(DNS_FINDING.caaIssuerNotPermitted, 'critical', message, evidence);
  }
  const wild = records.filter((record) => record.tag === 'issuewild');
  const relevant = wildcard && wild.length > 0 ? wild : records.filter((record) => record.tag === 'issue');
  // No issue property: issuance is not restricted (RFC 8659 §4.2).
  if (relevant.length === 0) return null;
  if (relevant.some((record) => ca.identifiers.includes(issuerDomain(record.value)))) return null;
  const property = relevant[0]?.tag ?? 'issue';
  const message = `CAA ${property} does not permit ${ca.name} (${ca.identifiers[0]}), the CA that issued the current ${wildcard ? 'wildcard ' : ''}certificate, so its next renewal will be refused.`;
  return dnsFinding(DNS_FINDING.caaIssuerNotPermitted, 'critical', message, evidence);
}

/** The issuer domain name of an issue value; empty for `;` which permits no CA (RFC 8659 §4.2). */
function issuerDomain(value: string): string {
  return (value.split(';')[0] ?? '').trim().toLowerCase();
}

function presentation(record: CaaRecord): string {
  return `${record.flags} ${record.tag} "${record.value}"`;
}
