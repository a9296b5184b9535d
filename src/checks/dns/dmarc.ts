/**
 * DMARC assessment (RFC 7489, RFC 9989): the record at `_dmarc.<domain>`, else at the
 * organizational domain; its tags p, sp, np, pct, rua, psd, t; syntax errors; multiple records.
 */
import type { z } from 'zod';
import type { Finding } from '../result-common.ts';
import { DNS_FINDING, dnsFinding } from './findings.ts';
import type { dmarcSchema } from './result.ts';

export type DmarcResult = z.infer<typeof dmarcSchema>;

/** The TXT strings found at one `_dmarc.` name. */
export interface DmarcLookup {
  /** The queried name, e.g. `_dmarc.shop.co.uk`. */
  name: string;
  txt: readonly string[];
}

export interface ParsedDmarc {
  tags: Map<string, string>;
  errors: string[];
}

const POLICIES = ['none', 'quarantine', 'reject'];
/** Allowed values per tag; a tag not listed here takes free text or is checked below. */
const TAG_VALUES: Record<string, RegExp> = {
  p: /^(none|quarantine|reject)$/i,
  sp: /^(none|quarantine|reject)$/i,
  np: /^(none|quarantine|reject)$/i,
  adkim: /^[rs]$/i,
  aspf: /^[rs]$/i,
  fo: /^[01ds](:[01ds])*$/i,
  psd: /^[ynu]$/i,
  t: /^[yn]$/i,
  pct: /^(100|[1-9]?\d)$/,
  ri: /^\d+$/,
  rf: /^[a-z0-9-]+(:[a-z0-9-]+)*$/i,
};
/** A report URI: mailto or https, optionally with the RFC 7489 `!size` suffix. */
const REPORT_URI = /^(mailto:[^\s@,]+@[^\s,!]+|https:\/\/[^\s,!]+)(![0-9]+[kmgt]?)?$/i;

/** RFC 7489 §6.6.3: only TXT strings that begin with `v=DMARC1` are DMARC records. */
export function isDmarcRecord(text: string): boolean {
  return /^v\s*=\s*DMARC1\s*(;|$)/i.test(text.trimStart());
}

/** Parses `tag=value; …`; unknown tags are kept but not errors (RFC 9989 ignores them). */
export function parseDmarc(record: string): ParsedDmarc {
  const tags = new Map<string, string>();
  const errors: string[] = [];
  const parts = record.split(';').map((part) => part.trim());
  for (const [index, part] of parts.entries()) {
    if (part === '') continue;
    const match = /^([a-z][a-z0-9_]*)\s*=\s*(.*)$/i.exec(part);
    if (!match?.[1] || match[2] === undefined) {
      errors.push(`"${part}" is not a tag=value pair`);
      continue;
    }
    const tag = match[1].toLowerCase();
    const value = match[2].trim();
    if (index === 0 && tag !== 'v') errors.push('the record must start with v=DMARC1');
    if (tags.has(tag)) errors.push(`tag "${tag}" appears more than once`);
    const allowed = TAG_VALUES[tag];
    if (allowed && !allowed.test(value)) errors.push(`"${tag}=${value}" is not a valid value`);
    if ((tag === 'rua' || tag === 'ruf') && !reportUris(value).every((uri) => REPORT_URI.test(uri))) {
      errors.push(`"${tag}=${value}" has an address that is not a mailto: or https: URI`);
    }
    tags.set(tag, value);
  }
  if (!tags.has('p')) errors.push('there is no p tag, so receivers apply p=none (RFC 9989)');
  return { tags, errors };
}

function reportUris(value: string): string[] {
  return value
    .split(',')
    .map((uri) => uri.trim())
    .filter((uri) => uri !== '');
}

/**
 * Assesses DMARC for a domain from the lookup at `_dmarc.<domain>` and, when the domain is not its
 * own organizational domain, the lookup at `_dmarc.<organizational domain>` (else null).
 */
export function assessDmarc(
  atDomain: DmarcLookup,
  atOrganization: DmarcLookup | null,
): { dmarc: DmarcResult | null; findings: Finding[] } {
  const own = atDomain.txt.filter(isDmarcRecord);
  const fromOrganization = own.length === 0 && atOrganization !== null;
  const source = fromOrganization ? atOrganization : atDomain;
  const records = fromOrganization ? atOrganization.txt.filter(isDmarcRecord) : own;
  const [record] = records;
  if (record === undefined) {
    const message =
      'No DMARC record is published, so receivers have no policy for mail that fails SPF and DKIM.';
    return { dmarc: null, findings: [dnsFinding(DNS_FINDING.dmarcMissing, 'warning', message)] };
  }
  const findings: Finding[] = [];
  if (records.length > 1) {
    const message = `${records.length} DMARC records are published at ${source.name}; receivers then apply none of them.`;
    findings.push(dnsFinding(DNS_FINDING.dmarcMultipleRecords, 'critical', message, records.join('\n')));
  }
  const { tags, errors } = parseDmarc(record);
  if (errors.length > 0) {
    const message = `The DMARC record has syntax errors: ${errors.join('; ')}.`;
    findings.push(dnsFinding(DNS_FINDING.dmarcSyntax, 'warning', message, record));
  }
  const p = tags.get('p')?.toLowerCase();
  const policy = p === undefined ? 'none' : POLICIES.includes(p) ? p : null;
  const sp = tags.get('sp')?.toLowerCase();
  const subdomainPolicy = sp !== undefined && POLICIES.includes(sp) ? sp : policy;
  // A subdomain covered by its organizational domain's record gets the sp policy (RFC 7489 §6.6.3).
  const applied = fromOrganization ? subdomainPolicy : policy;
  if (applied === 'none') {
    const message = `The DMARC policy${fromOrganization ? ' for subdomains' : ''} is none: failing mail is only reported, not quarantined or rejected.`;
    findings.push(dnsFinding(DNS_FINDING.dmarcPolicyNone, 'warning', message, record));
  }
  if (tags.get('t')?.toLowerCase() === 'y') {
    const message =
      'The DMARC record is in test mode (t=y): receivers apply the policy one step less strictly.';
    findings.push(dnsFinding(DNS_FINDING.dmarcTestMode, 'info', message, record));
  }
  const pct = tags.get('pct');
  return {
    dmarc: {
      record,
      policy,
      subdomain_policy: subdomainPolicy,
      pct: pct !== undefined && TAG_VALUES.pct?.test(pct) ? Number(pct) : null,
      rua: reportUris(tags.get('rua') ?? ''),
      found_at: source.name,
    },
    findings,
  };
}
