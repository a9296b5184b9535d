/** Cert finding codes (never renamed once published) and the sentences behind them. */
import type { Issuance } from '../../sources/ct/issuance.ts';
import type { Finding } from '../result-common.ts';
import { toTimestamp } from '../result-common.ts';
import { daysLeft } from './current-certificate.ts';
import type { FixedRenewalDay } from './fixed-day.ts';
import type { JudgedField, LiveProbe, OtherCaField, Stall } from './result.ts';
import type { ServedCertificate } from './serves-newest.ts';
import { lifetimeDays, type Validity } from './validity.ts';

export const CERT_FINDINGS = {
  notFound: 'cert.not_found',
  expired: 'cert.expired',
  expiresSoon: 'cert.expires_soon',
  renewalWatch: 'cert.renewal_watch',
  renewalStalled: 'cert.renewal_stalled',
  fixedRenewalDay: 'cert.fixed_renewal_day',
  probeFailed: 'probe.failed',
  renewedNotDeployed: 'cert.renewed_not_deployed',
  otherCaNotServed: 'cert.other_ca_not_served',
} as const;

/** Days left below which expiry is a warning. */
export const EXPIRES_SOON_WARNING_DAYS = 14;
/** Days left below which expiry is critical. */
export const EXPIRES_SOON_CRITICAL_DAYS = 7;
/** Certificates this short-lived (in days) are judged by a third of their lifetime instead. */
export const SHORT_LIVED_MAX_DAYS = 10;

export function notFoundFinding(domain: string): Finding {
  return {
    code: CERT_FINDINGS.notFound,
    severity: 'warning',
    message: `No certificate covering ${domain} (by its exact name or a wildcard one level up) was found in CT logs.`,
  };
}

/**
 * Days left below which the expiry of a certificate of `validity`'s lifetime is a warning, and a
 * critical: 14 and 7, or a third of the lifetime for certificates under 10 days.
 */
export function expiryThresholds(validity: Validity): { warnBelow: number; criticalBelow: number } {
  const lifetime = lifetimeDays(validity);
  if (lifetime <= SHORT_LIVED_MAX_DAYS) return { warnBelow: lifetime / 3, criticalBelow: lifetime / 3 };
  return { warnBelow: EXPIRES_SOON_WARNING_DAYS, criticalBelow: EXPIRES_SOON_CRITICAL_DAYS };
}

/**
 * `cert.expired` or `cert.expires_soon` for the described certificate, or nothing; `source` says
 * whether it is the served one (judged-certificate.ts) or CT's newest; `renewed` that its CA has
 * issued a newer one (said by `cert.renewed_not_deployed`).
 */
export function expiryFindings(
  current: Issuance,
  now: Date,
  source: JudgedField['source'],
  renewed = false,
): Finding[] {
  const left = daysLeft(current, now);
  const subject = source === 'served' ? 'The certificate the site serves' : 'The newest certificate in CT';
  const evidence = `not_after ${toTimestamp(current.notAfter)}`;
  if (left < 0) {
    return [
      {
        code: CERT_FINDINGS.expired,
        severity: 'critical',
        message: `${subject} expired ${Math.ceil(-left)} days ago${renewed ? '' : ' and no newer one from its CA has been issued'}.`,
        evidence,
      },
    ];
  }
  const { warnBelow, criticalBelow } = expiryThresholds(current);
  if (left >= warnBelow) return [];
  return [
    {
      code: CERT_FINDINGS.expiresSoon,
      severity: left < criticalBelow ? 'critical' : 'warning',
      message: `${subject} expires in ${Math.floor(left)} days, on ${toTimestamp(current.notAfter).slice(0, 10)}.`,
      evidence,
    },
  ];
}

const LATE_RENEWAL = {
  watch: { code: CERT_FINDINGS.renewalWatch, severity: 'warning' },
  stalled: { code: CERT_FINDINGS.renewalStalled, severity: 'critical' },
} as const;

/**
 * `cert.renewal_watch` / `cert.renewal_stalled` for a late renewal, or nothing. Inside the CA's ARI
 * window a renewal is not late: that watch is information, not a warning.
 */
export function stallFindings(stall: Stall): Finding[] {
  if (stall.status !== 'watch' && stall.status !== 'stalled') return [];
  const inWindow = stall.status === 'watch' && stall.basis === 'ari';
  return [
    {
      ...LATE_RENEWAL[stall.status],
      ...(inWindow ? { severity: 'info' as const } : {}),
      message: stall.reason,
      evidence: `overdue_days ${stall.overdue_days ?? 0}`,
    },
  ];
}

export function fixedRenewalDayFinding(fixed: FixedRenewalDay): Finding {
  const outcome =
    fixed.daysLeftOn64 <= 0
      ? 'after a 64-day certificate has already expired'
      : `with only ${fixed.daysLeftOn64} of a 64-day certificate's days left`;
  return {
    code: CERT_FINDINGS.fixedRenewalDay,
    severity: 'warning',
    message: `Renewals happen a fixed ${fixed.days} days after issuance, which under the 64-day default from 2027-02-10 means renewing ${outcome}; renew at two-thirds of the lifetime or use ACME ARI instead.`,
    evidence: `renewal interval ${fixed.days} days`,
  };
}

/** `probe.failed` when the live HTTPS request did not succeed, or nothing. */
export function probeFindings(probe: LiveProbe, domain: string): Finding[] {
  if (probe.ok) return [];
  const why = probe.error ?? (probe.http_status !== null ? `HTTP ${probe.http_status}` : 'unknown error');
  return [
    {
      code: CERT_FINDINGS.probeFailed,
      severity: 'warning',
      message: `The live HTTPS request to ${domain} failed (${why}).`,
      evidence: why,
    },
  ];
}

/** `cert.renewed_not_deployed`: CT holds `successor`, yet the site still serves an older certificate. */
export function renewedNotDeployedFinding(
  served: ServedCertificate,
  successor: Issuance,
  domain: string,
  now: Date,
): Finding {
  const hours = Math.floor(
    (now.getTime() - (successor.loggedAt ?? successor.notBefore).getTime()) / 3_600_000,
  );
  const age = hours < 48 ? `${hours} hours` : `${Math.floor(hours / 24)} days`;
  return {
    code: CERT_FINDINGS.renewedNotDeployed,
    severity: 'warning',
    message: `${domain} still serves a certificate issued on ${toTimestamp(served.notBefore).slice(0, 10)}, although a newer one from ${successor.issuer} was issued ${age} ago: the renewal worked but the new certificate was not deployed (reload or restart the server, or update the load balancer or CDN that holds it).`,
    evidence: `served serial ${served.serial} not_before ${toTimestamp(served.notBefore)}; newest in CT serial ${successor.serial ?? 'unknown'} not_before ${toTimestamp(successor.notBefore)}`,
  };
}

/**
 * `cert.other_ca_not_served` (info): CT holds a newer certificate of another CA that first issued
 * for the name after the served certificate, and the site does not serve it.
 */
export function otherCaNotServedFinding(other: OtherCaField, domain: string): Finding {
  return {
    code: CERT_FINDINGS.otherCaNotServed,
    severity: 'info',
    message: `CT holds a newer certificate for ${domain} from ${other.issuer}, issued on ${other.not_before.slice(0, 10)}, that the site does not serve: a move to ${other.issuer} not deployed yet, or a newly added backup. The verdict is about the certificate the site serves.`,
    evidence: `${other.issuer} serial ${other.serial ?? 'unknown'} not_before ${other.not_before}`,
  };
}
