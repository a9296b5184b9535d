/** Day arithmetic on certificate validity periods, shared by the cert analysis modules. */
import type { Issuance } from '../../sources/ct/issuance.ts';

/** A validity period. */
export type Validity = Pick<Issuance, 'notBefore' | 'notAfter'>;

/** One day in milliseconds (a CA/B Forum day is 86,400 s). */
export const DAY_MS = 86_400_000;

/** Validity period length in milliseconds. */
export function lifetimeMs(issuance: Validity): number {
  return issuance.notAfter.getTime() - issuance.notBefore.getTime();
}

/** Validity period in days, any excess counting as an extra day (BR §6.3.2), so 90 d − 1 s is 90. */
export function lifetimeDays(issuance: Validity): number {
  return Math.ceil(lifetimeMs(issuance) / DAY_MS - 1e-9);
}

/** Days from `from` to `to`, fractional (negative when `to` is earlier). */
export function daysBetween(from: Date, to: Date): number {
  return (to.getTime() - from.getTime()) / DAY_MS;
}

/** Rounds to one decimal place, as day counts and percentages are reported. */
export function oneDecimal(value: number): number {
  return Math.round(value * 10) / 10;
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
