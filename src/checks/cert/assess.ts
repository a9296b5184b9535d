/** Pure cert analysis: CT issuances + live probe at `now` → the check-specific part of the result. */
import type { AriOutcome } from '../../sources/ari/lookup.ts';
import type { Issuance } from '../../sources/ct/issuance.ts';
import type { Finding } from '../result-common.ts';
import { toTimestamp } from '../result-common.ts';
import { assessAriWindow, followsAriWindow, implausibleWindowFindings } from './ari-verdict.ts';
import { type CertificateView, currentIssuance, describeCertificate } from './current-certificate.ts';
import {
  expiryFindings,
  fixedRenewalDayFinding,
  notFoundFinding,
  otherCaNotServedFinding,
  probeFindings,
  renewedNotDeployedFinding,
  stallFindings,
} from './findings.ts';
import { detectFixedRenewalDay } from './fixed-day.ts';
import { assessCadence } from './renewal.ts';
import type { AriField, CertResult, LiveProbe } from './result.ts';
import { servedChainFindings, type ServedChain } from './served-chain.ts';
import { compareServed, type ServedCertificate } from './serves-newest.ts';
import { unjudgedCodes } from './unjudged.ts';
import { judgeCertificate, type JudgedCertificate, otherCaCertificate } from './judged-certificate.ts';
import { assessStall } from './stall.ts';
import { hasWebPkiValidity } from './webpki.ts';

/** Most issuances listed in `history`. */
export const HISTORY_MAX = 10;

export interface CertAssessment {
  certificate: CertificateView | null;
  judged: CertResult['judged'];
  newer_certificate: CertResult['newer_certificate'];
  other_ca_certificate: CertResult['other_ca_certificate'];
  renewal: CertResult['renewal'];
  history: CertResult['history'];
  findings: Finding[];
  live_probe: CertResult['live_probe'];
}

/**
 * The probe's verdict and, when it read one (Node), the served leaf and the chain it came in;
 * `readsLeaf` false where the runtime cannot read it (Cloudflare Workers; default true).
 */
export type ProbeView = LiveProbe & {
  served?: ServedCertificate | null;
  chain?: ServedChain | null;
  readsLeaf?: boolean;
};

/** The newest issuance covering `domain` that a publicly trusted CA could have made. */
export function currentTrustedIssuance(seen: readonly Issuance[], domain: string): Issuance | null {
  return currentIssuance(seen.filter(hasWebPkiValidity), domain);
}

/** The certificate the verdict is about (judged-certificate.ts), among the trusted issuances. */
export function judgedIssuance(
  seen: readonly Issuance[],
  domain: string,
  served: ServedCertificate | null,
  readsLeaf = true,
): JudgedCertificate {
  return judgeCertificate(seen.filter(hasWebPkiValidity), domain, { leaf: served, readsLeaf });
}

/**
 * Analyses the CT history of `domain` (lower-case ASCII), the live probe and the CA's renewal
 * information (ARI) about the judged certificate, as seen at `now`. The judged certificate is the
 * one the site serves where the probe read it and CT holds it, else CT's newest
 * (judged-certificate.ts); the served leaf is also compared with CT (serves-newest.ts). Issuances no
 * publicly trusted CA could have made (webpki.ts) are left out of every part. The stall verdict
 * comes from the CA's window when it gave one, else from the cadence.
 */
export function assessCertificates(
  seen: readonly Issuance[],
  { served = null, chain = null, readsLeaf = true, ...probe }: ProbeView,
  domain: string,
  now: Date,
  ariAnswer: AriOutcome | null = null,
  ctSource: CertResult['ct_source'] = 'crt.sh',
): CertAssessment {
  const issuances = seen.filter(hasWebPkiValidity);
  const judged = judgeCertificate(issuances, domain, { leaf: served, readsLeaf });
  const current = judged.issuance;
  const described = judged.certificate;
  // A served leaf CT does not hold yet is still its CA's latest issuance: the cadence counts it.
  const withServed =
    judged.served && !issuances.includes(judged.served) ? [...issuances, judged.served] : issuances;
  const cadence = current ? assessCadence(withServed, current, domain) : null;
  const byCadence = assessStall(current, cadence?.cadenceDays ?? null, now);
  const byAri = current
    ? assessAriWindow({
        current,
        issuances,
        domain,
        ari: ariAnswer,
        servedLeaf: probe.ok ? served : null,
        now,
      })
    : null;
  const stall = byAri?.stall ?? byCadence.stall;
  // Renewals landing inside the CA's window follow ARI: their steady interval is no fixed day.
  const followsAri = current && cadence ? followsAriWindow(cadence, current, ariAnswer) : null;
  const fixed = cadence && !followsAri ? detectFixedRenewalDay(cadence) : null;
  const { servesNewest, successor } = compareServed(served, issuances, domain, now);
  const otherCa = otherCaCertificate(issuances, domain, judged, now);
  const refusedForCertificate = (chain?.refusal ?? null) !== null;
  const findings: Finding[] = [
    ...(described
      ? expiryFindings(described, now, judged.field.source, successor !== null || current !== described)
      : [notFoundFinding(domain)]),
    ...(chain ? servedChainFindings(chain, domain, now) : []),
    ...stallFindings(stall),
    ...(byAri?.findings ?? []),
    ...(current ? implausibleWindowFindings(current, ariAnswer) : []),
    ...(fixed ? [fixedRenewalDayFinding(fixed)] : []),
    // A refusal about the certificate is said by the certificate findings above, not as a probe failure.
    ...(refusedForCertificate ? [] : probeFindings(probe, domain)),
    ...(served && successor ? [renewedNotDeployedFinding(served, successor, domain, now)] : []),
    ...(otherCa?.relation === 'move_not_deployed' ? [otherCaNotServedFinding(otherCa, domain)] : []),
  ];
  const renewBy = byAri?.renewBy ?? byCadence.renewBy;
  const servedChain = !chain ? 'not_read' : chain.refusal ? 'refused' : 'verified';
  return {
    certificate: described ? describeCertificate(described, domain, now) : null,
    judged: {
      ...judged.field,
      served_chain: servedChain,
      unjudged: unjudgedCodes({ readsLeaf, chainRead: chain !== null || served !== null, ctSource }),
    },
    newer_certificate:
      current && described && current !== described && judged.served
        ? describeCertificate(current, domain, now)
        : null,
    other_ca_certificate: otherCa,
    renewal: {
      issuances_seen: issuances.length,
      cadence_days: cadence?.cadenceDays ?? null,
      renews_at_percent: cadence?.renewsAtPercent ?? null,
      follows_ari_window: followsAri,
      expected_renewal_at: byCadence.expectedRenewalAt ? toTimestamp(byCadence.expectedRenewalAt) : null,
      renew_by: renewBy ? toTimestamp(renewBy) : null,
      stall,
      ari: current && ariAnswer ? ariField(ariAnswer) : null,
    },
    history: historyField(issuances),
    findings,
    live_probe: { ...probe, serves_newest: servesNewest },
  };
}

/** The result's `history`: the newest issuances, newest first. */
function historyField(issuances: readonly Issuance[]): CertResult['history'] {
  const newestFirst = [...issuances].sort((a, b) => b.notBefore.getTime() - a.notBefore.getTime());
  return newestFirst.slice(0, HISTORY_MAX).map((issuance) => ({
    issuer: issuance.issuer,
    serial: issuance.serial,
    not_before: toTimestamp(issuance.notBefore),
    not_after: toTimestamp(issuance.notAfter),
  }));
}

/** The result's `renewal.ari` for the CA's answer. */
function ariField(answer: AriOutcome): AriField {
  return {
    status: answer.status,
    ca: answer.ca,
    cert_id: answer.certId,
    window: answer.window
      ? { start: toTimestamp(answer.window.start), end: toTimestamp(answer.window.end) }
      : null,
    explanation_url: answer.explanationUrl,
    checked_at: answer.checkedAt ? toTimestamp(answer.checkedAt) : null,
  };
}
