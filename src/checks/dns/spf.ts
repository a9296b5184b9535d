/**
 * SPF assessment (RFC 7208): exactly one `v=spf1` record, the syntax of every term, the lookup and
 * void-lookup counts from the resolved include tree, and how strict the `all` term is.
 */

import type { z } from 'zod';
import type { Finding } from '../result-common.ts';
import { DNS_FINDING, dnsFinding } from './findings.ts';
import type { spfSchema } from './result.ts';
import { isSpfRecord, parseSpf } from '../../sources/doh/records/spf-record.ts';
import type { SpfWalk } from '../../sources/doh/spf-walk.ts';

export type SpfResult = z.infer<typeof spfSchema>;

const PROBLEM_FINDINGS = {
  too_many_lookups: [DNS_FINDING.spfTooManyLookups, 'needs more than 10 DNS lookups, so receivers fail it'],
  too_many_void_lookups: [DNS_FINDING.spfTooManyVoidLookups, 'has more than 2 lookups that find nothing'],
  include_loop: [DNS_FINDING.spfIncludeLoop, 'includes itself through a loop'],
  include_missing: [DNS_FINDING.spfIncludeMissing, 'includes a domain without exactly one SPF record'],
  syntax: [DNS_FINDING.spfSyntax, 'includes a record that receivers reject'],
} as const;

/**
 * Assesses the TXT records published at the domain. `walk` is the resolved tree of the single SPF
 * record, or null when there is not exactly one.
 */
export function assessSpf(
  txt: readonly string[],
  walk: SpfWalk | null,
): { spf: SpfResult | null; findings: Finding[] } {
  const records = txt.filter(isSpfRecord);
  const [record] = records;
  if (record === undefined) {
    return {
      spf: null,
      findings: [
        dnsFinding(
          DNS_FINDING.spfMissing,
          'warning',
          'No SPF record is published, so anyone can send mail as this domain.',
        ),
      ],
    };
  }
  if (records.length > 1) {
    const spf = {
      record,
      valid: false,
      lookups: 0,
      void_lookups: 0,
      all: parseSpf(record).all,
      includes: [],
    };
    const message = `${records.length} SPF records are published; receivers treat that as a permanent error (RFC 7208 §4.5).`;
    // Whichever record a lenient receiver or a later clean-up keeps, a +all in it opens the domain.
    const openRecord = records.find((text) => parseSpf(text).all === '+all');
    return {
      spf,
      findings: [
        dnsFinding(DNS_FINDING.spfMultipleRecords, 'critical', message, records.join('\n')),
        ...(openRecord === undefined ? [] : allFindings('+all', false, openRecord)),
      ],
    };
  }
  const parsed = parseSpf(record);
  const findings: Finding[] = [];
  if (parsed.errors.length > 0) {
    const message = `The SPF record has syntax errors, so receivers reject it: ${parsed.errors.join('; ')}.`;
    findings.push(dnsFinding(DNS_FINDING.spfSyntax, 'critical', message, record));
  }
  for (const problem of walk?.problems ?? []) {
    const [code, what] = PROBLEM_FINDINGS[problem.code];
    findings.push(
      dnsFinding(code, 'critical', `The SPF record ${what} (${problem.detail}).`, problem.evidence),
    );
  }
  const all = walk ? walk.all : parsed.all;
  findings.push(...allFindings(all, parsed.redirect !== null, record));
  return {
    spf: {
      record,
      valid: parsed.errors.length === 0 && (walk?.problems.length ?? 0) === 0,
      lookups: walk?.lookups ?? 0,
      void_lookups: walk?.voidLookups ?? 0,
      all,
      includes: walk?.includes ?? [],
    },
    findings,
  };
}

/** RFC 7208 §4.7: with no `all` and no redirect the result is neutral, as with `?all`. */
function allFindings(all: string | null, redirected: boolean, record: string): Finding[] {
  if (all === '+all') {
    const message =
      'The SPF record ends in +all, which authorises every server on the internet to send as this domain.';
    return [dnsFinding(DNS_FINDING.spfPermissiveAll, 'critical', message, record)];
  }
  if (all === '?all' || (all === null && !redirected)) {
    const message = `The SPF record ${all ? 'ends in ?all' : 'has no all term'}, so mail from unlisted servers gets a neutral result instead of failing.`;
    return [dnsFinding(DNS_FINDING.spfPermissiveAll, 'warning', message, record)];
  }
  if (all === '~all') {
    const message =
      'The SPF record ends in ~all (softfail): unlisted servers are marked suspicious rather than rejected.';
    return [dnsFinding(DNS_FINDING.spfSoftfailAll, 'info', message, record)];
  }
  return [];
}
