/**
 * Finding codes of the dns check. Published codes never change; add, never rename.
 */
import type { Finding, Severity } from '../result-common.ts';

export const DNS_FINDING = {
  noNs: 'dns.no_ns',
  noAddress: 'dns.no_address',
  mxMissing: 'mx.missing',
  spfMissing: 'spf.missing',
  spfMultipleRecords: 'spf.multiple_records',
  spfSyntax: 'spf.syntax',
  spfTooManyLookups: 'spf.too_many_lookups',
  spfTooManyVoidLookups: 'spf.too_many_void_lookups',
  spfPermissiveAll: 'spf.permissive_all',
  spfSoftfailAll: 'spf.softfail_all',
  /** An include or redirect leads back to a domain already being evaluated. */
  spfIncludeLoop: 'spf.include_loop',
  /** An include or redirect target publishes no SPF record (RFC 7208 §5.2: permerror). */
  spfIncludeMissing: 'spf.include_missing',
  dmarcMissing: 'dmarc.missing',
  dmarcPolicyNone: 'dmarc.policy_none',
  dmarcSyntax: 'dmarc.syntax',
  dmarcMultipleRecords: 'dmarc.multiple_records',
  /** `t=y` (RFC 9989): receivers apply the policy one step less strictly. */
  dmarcTestMode: 'dmarc.test_mode',
  /** adkim or aspf neither r nor s: discarded, relaxed alignment applies (RFC 9989 §4.8). */
  dmarcAlignmentIgnored: 'dmarc.alignment_ignored',
  caaMissing: 'caa.missing',
  caaIssuerNotPermitted: 'caa.issuer_not_permitted',
  /** The CAA lookup fails at both resolvers: CAs must not issue (RFC 8659 §3, BR §3.2.2.8). */
  caaLookupFailed: 'caa.lookup_failed',
  /** Lookups other than CAA fail (SERVFAIL or timeout) at both resolvers while they work. */
  lookupFailed: 'dns.lookup_failed',
  /** `_acme-challenge.<domain>` holds TXT tokens (stale) or a CNAME (delegated DNS-01). */
  acmeChallengePresent: 'dns.acme_challenge_present',
  /** A DNS-PERSIST-01 record's `persistUntil` is past or within 30 days. */
  validationPersistExpiring: 'dns.validation_persist_expiring',
  /** A TXT record at `_validation-persist.<domain>` that CAs refuse as malformed. */
  validationPersistMalformed: 'dns.validation_persist_malformed',
  /** A DNS-PERSIST-01 record with a hyphenated tag, which Let's Encrypt's CAA parser may refuse. */
  validationPersistHyphenatedTag: 'dns.validation_persist_hyphenated_tag',
  dnssecUnsigned: 'dnssec.unsigned',
  dnssecBogus: 'dnssec.bogus',
} as const;

export type DnsFindingCode = (typeof DNS_FINDING)[keyof typeof DNS_FINDING];

/** Builds a finding; `evidence` is the record text that caused it, when there is one. */
export function dnsFinding(
  code: DnsFindingCode,
  severity: Severity,
  message: string,
  evidence?: string,
): Finding {
  return evidence === undefined ? { code, severity, message } : { code, severity, message, evidence };
}
