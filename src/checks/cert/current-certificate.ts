/** The current certificate: the newest CT issuance covering the domain, as the result reports it. */
import { type Issuance, issuanceCovers } from '../../sources/ct/issuance.ts';
import { toTimestamp } from '../result-common.ts';
import type { CertResult } from './result.ts';
import { DAY_MS, daysBetween, lifetimeDays, lifetimeMs, oneDecimal } from './validity.ts';

export type CertificateView = NonNullable<CertResult['certificate']>;

/** The newest issuance (by notBefore) whose names cover `domain`, or null when CT has none. */
export function currentIssuance(issuances: readonly Issuance[], domain: string): Issuance | null {
  let newest: Issuance | null = null;
  for (const issuance of issuances) {
    if (!issuanceCovers(issuance, domain)) continue;
    if (!newest || issuance.notBefore > newest.notBefore) newest = issuance;
  }
  return newest;
}

/** The result's `certificate` object for `issuance`, seen at `now`. */
export function describeCertificate(issuance: Issuance, domain: string, now: Date): CertificateView {
  const used = (now.getTime() - issuance.notBefore.getTime()) / lifetimeMs(issuance);
  return {
    issuer: issuance.issuer,
    issuer_dn: issuance.issuerDn,
    serial: issuance.serial,
    not_before: toTimestamp(issuance.notBefore),
    not_after: toTimestamp(issuance.notAfter),
    days_left: Math.floor(daysBetween(now, issuance.notAfter)),
    lifetime_days: lifetimeDays(issuance),
    percent_used: oneDecimal(Math.min(100, Math.max(0, used * 100))),
    names: issuance.names,
    // Covered by the wildcard only when the exact name is absent (RFC 6125 §6.4.3).
    wildcard: !issuance.names.includes(domain),
  };
}

/** Days until `issuance` expires, fractional; negative once expired. */
export function daysLeft(issuance: Issuance, now: Date): number {
  return (issuance.notAfter.getTime() - now.getTime()) / DAY_MS;
}
