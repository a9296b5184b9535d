/**
 * Whether a CT issuance could be a publicly trusted TLS certificate, judged by its validity period:
 * the CA/Browser Forum Baseline Requirements cap it (§6.3.2, SC-081's schedule from 2026), so an
 * issuance longer than the cap in force on its notBefore came from no publicly trusted CA (a
 * private or test CA, or a row an aggregator could not attribute) and never counts as the site's
 * certificate.
 */
import type { Issuance } from '../../sources/ct/issuance.ts';
import { lifetimeDays } from './validity.ts';

/** Longest validity in days for certificates issued on or after each date, newest rule first. */
const MAX_VALIDITY_DAYS: readonly [since: Date, days: number][] = [
  [new Date('2029-03-15T00:00:00Z'), 47],
  [new Date('2027-03-15T00:00:00Z'), 100],
  [new Date('2026-03-15T00:00:00Z'), 200],
  [new Date('2020-09-01T00:00:00Z'), 398],
  [new Date('2018-03-01T00:00:00Z'), 825],
  // 39 months from 2015-04-01, 60 months before.
  [new Date('2015-04-01T00:00:00Z'), 1_188],
];
const EARLIEST_MAX_DAYS = 1_827;

/** One day of slack: CAs have issued a second over the cap, and such a certificate is still served. */
const SLACK_DAYS = 1;

/** The Baseline Requirements' maximum validity in days for a certificate issued at `notBefore`. */
export function maxValidityDays(notBefore: Date): number {
  return MAX_VALIDITY_DAYS.find(([since]) => notBefore >= since)?.[1] ?? EARLIEST_MAX_DAYS;
}

/** True when the issuance's validity fits the Baseline Requirements of its issue date. */
export function hasWebPkiValidity(issuance: Issuance): boolean {
  return lifetimeDays(issuance) <= maxValidityDays(issuance.notBefore) + SLACK_DAYS;
}
