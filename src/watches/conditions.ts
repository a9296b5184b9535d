/**
 * A watch's state: the set of conditions read from one site-health result. Codes of every
 * `warning` or `critical` finding (sections and cross-checks; `probe.failed` among them when the
 * live probe failed for a reason that is not the certificate's), and `cert.lifetime_low` when less than a fifth of the current certificate's lifetime is
 * left — a share of the lifetime, so 6-day, 45-day and 90-day certificates are judged alike.
 */
import type { Finding } from '../checks/result-common.ts';
import type { SiteHealthResult } from '../checks/site-health/result.ts';

export const PROBE_FAILED = 'probe.failed';
export const CERT_LIFETIME_LOW = 'cert.lifetime_low';

/** The share of a certificate's lifetime below which what is left counts as low. */
export const LIFETIME_LOW_SHARE = 1 / 5;

function sectionFindings(section: SiteHealthResult['cert' | 'dns' | 'expiry']): readonly Finding[] {
  return 'findings' in section ? section.findings : [];
}

/** Whether less than a fifth of the lifetime from `notBefore` to `notAfter` is left at `at`. */
export function lifetimeLow(notBefore: string, notAfter: string, at: string): boolean {
  const start = Date.parse(notBefore);
  const end = Date.parse(notAfter);
  const now = Date.parse(at);
  if (!Number.isFinite(start) || !Number.isFinite(end) || !Number.isFinite(now) || end <= start) return false;
  return end - now < (end - start) * LIFETIME_LOW_SHARE;
}

/** The sorted, duplicate-free condition codes of `result`. */
export function conditionsOf(result: SiteHealthResult): string[] {
  const codes = new Set<string>();
  const findings = [
    ...sectionFindings(result.cert),
    ...sectionFindings(result.dns),
    ...sectionFindings(result.expiry),
    ...result.findings,
  ];
  for (const finding of findings) {
    if (finding.severity === 'warning' || finding.severity === 'critical') codes.add(finding.code);
  }
  if ('live_probe' in result.cert) {
    const certificate = result.cert.certificate;
    if (certificate && lifetimeLow(certificate.not_before, certificate.not_after, result.checked_at)) {
      codes.add(CERT_LIFETIME_LOW);
    }
  }
  return [...codes].sort();
}

/** What changed between two condition sets; null when they are the same state. */
export function conditionChange(
  before: readonly string[],
  after: readonly string[],
): { raised: string[]; cleared: string[] } | null {
  const old = new Set(before);
  const now = new Set(after);
  const raised = [...now].filter((code) => !old.has(code)).sort();
  const cleared = [...old].filter((code) => !now.has(code)).sort();
  return raised.length === 0 && cleared.length === 0 ? null : { raised, cleared };
}
