/** Pure cert analysis: CT issuances + live probe at `now` → the check-specific part of the result. */
import type { Issuance } from '../../sources/ct/issuance.ts';
import type { Finding } from '../result-common.ts';
import { toTimestamp } from '../result-common.ts';
import { type CertificateView, currentIssuance, describeCertificate } from './current-certificate.ts';
import {
  expiryFindings,
  fixedRenewalDayFinding,
  notFoundFinding,
  probeFindings,
  renewedNotDeployedFinding,
  stallFindings,
} from './findings.ts';
import { detectFixedRenewalDay } from './fixed-day.ts';
import { assessCadence } from './renewal.ts';
import type { CertResult, LiveProbe } from './result.ts';
import { compareServed, type ServedCertificate } from './serves-newest.ts';
import { assessStall } from './stall.ts';
import { hasWebPkiValidity } from './webpki.ts';

/** Most issuances listed in `history`. */
export const HISTORY_MAX = 10;

export interface CertAssessment {
  certificate: CertificateView | null;
  renewal: CertResult['renewal'];
  history: CertResult['history'];
  findings: Finding[];
  live_probe: CertResult['live_probe'];
}

/** The probe's verdict and, when it read one (Node), the served leaf. */
export type ProbeView = LiveProbe & { served?: ServedCertificate | null };

/**
 * Analyses the CT history of `domain` (lower-case ASCII) and the live probe, as seen at `now`; the
 * served leaf, when the probe read one, is compared with CT (serves-newest.ts).
 * Issuances no publicly trusted CA could have made (webpki.ts) are left out of every part.
 */
export function assessCertificates(
  seen: readonly Issuance[],
  { served = null, ...probe }: ProbeView,
  domain: string,
  now: Date,
): CertAssessment {
  const issuances = seen.filter(hasWebPkiValidity);
  const current = currentIssuance(issuances, domain);
  const cadence = current ? assessCadence(issuances, current, domain) : null;
  const { stall, expectedRenewalAt } = assessStall(current, cadence?.cadenceDays ?? null, now);
  const fixed = cadence ? detectFixedRenewalDay(cadence) : null;
  const { servesNewest, successor } = compareServed(served, issuances, domain, now);
  const findings: Finding[] = [
    ...(current ? expiryFindings(current, now) : [notFoundFinding(domain)]),
    ...stallFindings(stall),
    ...(fixed ? [fixedRenewalDayFinding(fixed)] : []),
    ...probeFindings(probe, domain),
    ...(served && successor ? [renewedNotDeployedFinding(served, successor, domain, now)] : []),
  ];
  const newestFirst = [...issuances].sort((a, b) => b.notBefore.getTime() - a.notBefore.getTime());
  return {
    certificate: current ? describeCertificate(current, domain, now) : null,
    renewal: {
      issuances_seen: issuances.length,
      cadence_days: cadence?.cadenceDays ?? null,
      renews_at_percent: cadence?.renewsAtPercent ?? null,
      expected_renewal_at: expectedRenewalAt ? toTimestamp(expectedRenewalAt) : null,
      stall,
    },
    history: newestFirst.slice(0, HISTORY_MAX).map((issuance) => ({
      issuer: issuance.issuer,
      serial: issuance.serial,
      not_before: toTimestamp(issuance.notBefore),
      not_after: toTimestamp(issuance.notAfter),
    })),
    findings,
    live_probe: { ...probe, serves_newest: servesNewest },
  };
}
