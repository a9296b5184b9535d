/**
 * DMARC assessment as RFC 9989 (which obsoletes RFC 7489) has receivers do it: which TXT strings
 * are DMARC Policy Records (§4.7 "v"), the record at `_dmarc.<domain>` or else the one the DNS
 * Tree Walk selects (§4.10, §4.10.1, §4.10.2), tag syntax with unknown and removed tags ignored
 * (§4.7, §4.8), and the policy a receiver applies, including for an invalid p, sp or np (§4.10.1).
 */
import type { z } from 'zod';
import type { Finding } from '../result-common.ts';
import { DNS_FINDING, dnsFinding } from './findings.ts';
import type { dmarcSchema } from './result.ts';
import { type DmarcLookup, isDmarcRecord } from '../../sources/doh/records/dmarc.ts';

export type DmarcResult = z.infer<typeof dmarcSchema>;

export interface ParsedDmarc {
  /** Tags with a value their syntax allows (names lower case); others are discarded (§4.8). */
  tags: Map<string, string>;
  /** p, sp or np present with a value that is not a policy (§4.10.1 then applies). */
  invalidPolicy: string[];
  /** adkim or aspf with a value other than r or s: discarded, so relaxed applies (§4.8). */
  invalidAlignment: string[];
  errors: string[];
}

/** Registered tags and their value syntax (§4.7, §4.8); `rua`/`ruf` are checked as URI lists. */
const TAG_VALUES: Record<string, RegExp> = {
  p: /^(none|quarantine|reject)$/i,
  sp: /^(none|quarantine|reject)$/i,
  np: /^(none|quarantine|reject)$/i,
  adkim: /^[rs]$/i,
  aspf: /^[rs]$/i,
  fo: /^[01ds](\s*:\s*[01ds])*$/i,
  psd: /^[ynu]$/i,
  t: /^[yn]$/i,
};
const POLICY_TAGS = ['p', 'sp', 'np'];
/** Alignment modes: an invalid value is discarded and the default, relaxed, applies (§4.8). */
const ALIGNMENT_TAGS = ['adkim', 'aspf'];
/** A report URI: mailto or https; a `!size` suffix is obsolete syntax that reporters ignore (§4.8). */
const REPORT_URI = /^(mailto:[^\s@,]+@[^\s,!]+|https:\/\/[^\s,!]+)(![0-9]+[kmgt]?)?$/i;

/** Parses a DMARC Policy Record (one for which `isDmarcRecord` holds). */
export function parseDmarc(record: string): ParsedDmarc {
  const tags = new Map<string, string>();
  const invalidPolicy: string[] = [];
  const invalidAlignment: string[] = [];
  const errors: string[] = [];
  const parts = record.split(';').map((part) => part.trim());
  for (const part of parts.slice(1)) {
    if (part === '') continue;
    const match = /^([a-z][a-z0-9_]*)[ \t]*=[ \t]*(.*)$/i.exec(part);
    if (!match?.[1] || match[2] === undefined) {
      errors.push(`"${part}" is not a tag=value pair`);
      continue;
    }
    const tag = match[1].toLowerCase();
    const value = match[2].trim();
    const allowed = TAG_VALUES[tag];
    // Unknown tags, including pct, rf and ri that RFC 9989 removed, are ignored (§4.7).
    if (!allowed && tag !== 'rua' && tag !== 'ruf') continue;
    if (
      tags.has(tag) ||
      invalidPolicy.includes(tag) ||
      invalidAlignment.some((t) => t.startsWith(`${tag}=`))
    ) {
      errors.push(`tag "${tag}" appears more than once`);
      continue;
    }
    if (allowed && !allowed.test(value) && ALIGNMENT_TAGS.includes(tag)) {
      invalidAlignment.push(`${tag}=${value}`);
      continue;
    }
    if (allowed && !allowed.test(value)) {
      errors.push(`"${tag}=${value}" is not a valid value`);
      if (POLICY_TAGS.includes(tag)) invalidPolicy.push(tag);
      continue;
    }
    if ((tag === 'rua' || tag === 'ruf') && reportUris(value).length === 0) {
      // The ABNF asks for at least one URI; some receivers (mox) reject the whole record.
      errors.push(`"${tag}=" names no report address (some receivers reject the whole record for it)`);
      continue;
    }
    if ((tag === 'rua' || tag === 'ruf') && !reportUris(value).every((uri) => REPORT_URI.test(uri))) {
      errors.push(`"${tag}=${value}" has an address that is not a mailto: or https: URI`);
    }
    tags.set(tag, POLICY_TAGS.includes(tag) ? value.toLowerCase() : value);
  }
  return { tags, invalidPolicy, invalidAlignment, errors };
}

function reportUris(value: string): string[] {
  return value
    .split(',')
    .map((uri) => uri.trim())
    .filter((uri) => uri !== '');
}

/**
 * Assesses DMARC from the lookups at `_dmarc.<domain>` (first) and at each name of the DNS Tree
 * Walk above it (RFC 9989 §4.10), longest first; lookups past a failed one are left out.
 */
export function assessDmarc(lookups: readonly DmarcLookup[]): {
  dmarc: DmarcResult | null;
  findings: Finding[];
} {
  const findings: Finding[] = [];
  const [own, ...walk] = lookups;
  if (own === undefined) return { dmarc: null, findings };
  const ownRecords = own.txt.filter(isDmarcRecord);
  if (ownRecords.length > 1) {
    const message = `${ownRecords.length} DMARC records are published at ${own.name}; receivers discard them all (RFC 9989 §4.10).`;
    findings.push(dnsFinding(DNS_FINDING.dmarcMultipleRecords, 'critical', message, ownRecords.join('\n')));
  }
  const applied =
    ownRecords.length === 1 && ownRecords[0] !== undefined
      ? { name: own.name, record: ownRecords[0], inherited: false }
      : treeWalkRecord(walk);
  if (applied === null) {
    const nearMiss = own.txt.find((text) => /^\s*v\s*=\s*dmarc1/i.test(text) && !isDmarcRecord(text));
    const message = nearMiss
      ? `No DMARC record applies: the TXT record at ${own.name} is ignored by receivers because it does not start exactly with "v=DMARC1" (RFC 9989 §4.7).`
      : 'No DMARC record is published, so receivers have no policy for mail that fails SPF and DKIM.';
    findings.push(dnsFinding(DNS_FINDING.dmarcMissing, 'warning', message, nearMiss));
    return { dmarc: null, findings };
  }
  const { record, name, inherited } = applied;
  const { tags, invalidPolicy, invalidAlignment, errors } = parseDmarc(record);
  const rua = reportUris(tags.get('rua') ?? '');
  const reported = rua.some((uri) => REPORT_URI.test(uri));
  if (errors.length > 0) {
    const consequence =
      invalidPolicy.length === 0
        ? 'receivers ignore the invalid parts'
        : reported
          ? `because ${invalidPolicy.join(', ')} is invalid, receivers act as if the record said p=none (RFC 9989 §4.10.1)`
          : `because ${invalidPolicy.join(', ')} is invalid and there is no valid rua address, receivers apply no DMARC processing at all (RFC 9989 §4.10.1)`;
    const message = `The DMARC record has syntax errors (${errors.join('; ')}): ${consequence}.`;
    findings.push(dnsFinding(DNS_FINDING.dmarcSyntax, 'warning', message, record));
  }
  if (invalidAlignment.length > 0) {
    const message = `The DMARC record's ${invalidAlignment.join(' and ')} ${invalidAlignment.length > 1 ? 'are' : 'is'} not r or s: receivers discard ${invalidAlignment.length > 1 ? 'them' : 'it'} and use relaxed alignment, the default (RFC 9989 §4.8); the record stays valid.`;
    findings.push(dnsFinding(DNS_FINDING.dmarcAlignmentIgnored, 'info', message, record));
  }
  // §4.10.1: an invalid p, sp or np makes the whole record p=none, or not applied without rua.
  const broken = invalidPolicy.length > 0;
  const policy = broken ? (reported ? 'none' : null) : (tags.get('p') ?? 'none');
  const subdomainPolicy = broken ? policy : (tags.get('sp') ?? policy);
  // An inherited record gives the existing subdomain its sp policy (§4.10.1).
  const effective = inherited ? subdomainPolicy : policy;
  if (effective === 'none') {
    const message = `The DMARC policy${inherited ? ' for subdomains' : ''} is none: failing mail is only reported, not quarantined or rejected.`;
    findings.push(dnsFinding(DNS_FINDING.dmarcPolicyNone, 'warning', message, record));
  }
  if (effective !== null && tags.get('t')?.toLowerCase() === 'y') {
    const message =
      'The DMARC record is in test mode (t=y): receivers apply the policy one step less strictly.';
    findings.push(dnsFinding(DNS_FINDING.dmarcTestMode, 'info', message, record));
  }
  return {
    dmarc: {
      record,
      policy,
      subdomain_policy: subdomainPolicy,
      pct: historicPct(record),
      rua,
      found_at: name,
    },
    findings,
  };
}

/**
 * RFC 9989 §4.10 and §4.10.2: walking up, names with several records are discarded and the walk
 * stops at a record with psd=n or psd=y. The Organizational Domain is the name with psd=n, or the
 * name one label below a psd=y record, or else the record at the name with the fewest labels;
 * its record applies, or the Public Suffix Domain's when the Organizational Domain has none.
 */
function treeWalkRecord(
  walk: readonly DmarcLookup[],
): { name: string; record: string; inherited: true } | null {
  const found: { name: string; record: string; psd: string | undefined }[] = [];
  for (const lookup of walk) {
    const records = lookup.txt.filter(isDmarcRecord);
    if (records.length !== 1 || records[0] === undefined) continue;
    const psd = parseDmarc(records[0]).tags.get('psd')?.toLowerCase();
    found.push({ name: lookup.name, record: records[0], psd });
    if (psd === 'y' || psd === 'n') break;
  }
  const last = found.at(-1);
  if (last === undefined) return null;
  if (last.psd === 'y') {
    const index = walk.findIndex((lookup) => lookup.name === last.name);
    const organization = walk[index - 1]?.name;
    const own = found.find((entry) => entry.name === organization);
    return { name: (own ?? last).name, record: (own ?? last).record, inherited: true };
  }
  return { name: last.name, record: last.record, inherited: true };
}

/** The historic pct tag (RFC 7489; removed by RFC 9989), reported for older receivers only. */
function historicPct(record: string): number | null {
  const match = /(?:^|;)\s*pct\s*=\s*(\d{1,3})\s*(?:;|$)/i.exec(record);
  const value = match?.[1] === undefined ? Number.NaN : Number(match[1]);
  return value <= 100 ? value : null;
}
