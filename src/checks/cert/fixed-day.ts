/**
 * Fixed-day renewal detection: renewals at a constant day count (day 60 of a 90-day certificate)
 * that would leave under a third of a 64-day certificate, the 2027-02-10 Let's Encrypt default.
 */
import type { Issuance } from '../../sources/ct/issuance.ts';
import type { Cadence } from './renewal.ts';
import { lifetimeDays, median, oneDecimal } from './validity.ts';

/** The certificate lifetime the check looks ahead to, in days. */
export const COMING_LIFETIME_DAYS = 64;
/** Largest spread of an interval around the median that still counts as "fixed", in days. */
export const FIXED_DAY_TOLERANCE_DAYS = 1;
/**
 * Only short-lived series are judged: the 64-day change applies to ACME (default-profile)
 * certificates, and a yearly commercial renewal is a different problem.
 */
export const FIXED_DAY_MAX_LIFETIME_DAYS = 100;

export interface FixedRenewalDay {
  /** The fixed renewal interval, in days after issuance. */
  days: number;
  /** What would remain of a 64-day certificate at that point, in days (negative: already expired). */
  daysLeftOn64: number;
}

/** The fixed renewal day when the series shows one that 64-day certificates would break, else null. */
export function detectFixedRenewalDay(cadence: Cadence): FixedRenewalDay | null {
  const { intervalsDays, series } = cadence;
  if (intervalsDays.length < 2) return null;
  const previous: Issuance[] = series.slice(0, -1);
  if (previous.some((issuance) => lifetimeDays(issuance) > FIXED_DAY_MAX_LIFETIME_DAYS)) return null;
  const days = median(intervalsDays);
  if (intervalsDays.some((interval) => Math.abs(interval - days) > FIXED_DAY_TOLERANCE_DAYS)) return null;
  const daysLeftOn64 = COMING_LIFETIME_DAYS - days;
  if (daysLeftOn64 >= COMING_LIFETIME_DAYS / 3) return null;
  return { days: oneDecimal(days), daysLeftOn64: oneDecimal(daysLeftOn64) };
}
