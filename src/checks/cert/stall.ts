/**
 * The renewal-stall heuristic: from the current certificate and the observed cadence alone, is
 * a renewal overdue (watch) or overdue with expiry close (stalled)? No prior scans needed.
 */
import type { Issuance } from '../../sources/ct/issuance.ts';
import { toTimestamp } from '../result-common.ts';
import { daysLeft } from './current-certificate.ts';
import type { Stall } from './result.ts';
import { DAY_MS, daysBetween, lifetimeMs } from './validity.ts';

/** Smallest grace after the expected renewal before it counts as late, in days. */
export const STALL_MIN_GRACE_DAYS = 2;
/** Grace as a share of the lifetime. */
export const STALL_GRACE_SHARE = 0.05;
/** Smallest days-left threshold for `stalled`. */
export const STALL_MIN_DAYS_LEFT = 7;
/**
 * How many days before expiry a certificate is usually renewed when that is later than two-thirds
 * of its lifetime: the 30 days CAs' reminders and ACME clients' defaults work to (two-thirds of 90
 * days is the same day). A 398-day certificate is the 365-day year plus that overlap, so its
 * renewal is due around day 368, not at two-thirds (day 265). See docs/checks/cert.md.
 */
export const USUAL_RENEWAL_DAYS_BEFORE_EXPIRY = 30;

/**
 * The lifetime's usual renewal point, as an offset from notBefore: two-thirds of the lifetime, or
 * 30 days before expiry when that is later.
 */
export function usualRenewalOffsetMs(lifetime: number): number {
  return Math.max((lifetime * 2) / 3, lifetime - USUAL_RENEWAL_DAYS_BEFORE_EXPIRY * DAY_MS);
}

export interface StallAssessment {
  stall: Stall;
  /** When the next issuance was expected; null without a current certificate. */
  expectedRenewalAt: Date | null;
  /** The last moment the verdict still calls the renewal on time (expected + grace, at most the expiry). */
  renewBy: Date | null;
}

/**
 * Expected renewal = notBefore + the observed cadence, or + the lifetime's usual renewal point
 * when there is no cadence (two-thirds, Let's Encrypt's advice for clients without ARI, or 30 days
 * before expiry when later: a long-lived certificate without visible history, as Cert Spotter
 * shows one, is not late before then). `ok` until that point plus a
 * grace of max(2 days, 5 % of the lifetime); past it, `stalled` when days left ≤ max(7, lifetime/6),
 * else `watch`. `current` is by definition the newest issuance, so "no newer issuance" holds.
 */
export function assessStall(
  current: Issuance | null,
  cadenceDays: number | null,
  now: Date,
): StallAssessment {
  if (!current) {
    return {
      stall: {
        status: 'unknown',
        reason: 'No certificate covering the domain was found in CT logs.',
        overdue_days: null,
        basis: 'none',
      },
      expectedRenewalAt: null,
      renewBy: null,
    };
  }
  const lifetime = lifetimeMs(current);
  const offset = cadenceDays !== null ? cadenceDays * DAY_MS : usualRenewalOffsetMs(lifetime);
  // A renewal cannot be expected after the certificate has expired.
  const expected = new Date(current.notBefore.getTime() + Math.min(offset, lifetime));
  const grace = Math.max(STALL_MIN_GRACE_DAYS * DAY_MS, lifetime * STALL_GRACE_SHARE);
  const renewBy = new Date(Math.min(expected.getTime() + grace, current.notAfter.getTime()));
  const basis =
    cadenceDays !== null
      ? `the usual ${cadenceDays}-day cadence`
      : offset > (lifetime * 2) / 3
        ? `${USUAL_RENEWAL_DAYS_BEFORE_EXPIRY} days before expiry, the usual renewal point of a long lifetime`
        : 'two-thirds of the lifetime';
  const expectedText = toTimestamp(expected).slice(0, 10);
  if (now.getTime() < expected.getTime() + grace) {
    const when =
      now < expected
        ? `is expected around ${expectedText}`
        : `was due around ${expectedText} and is within the grace period`;
    return {
      stall: {
        status: 'ok',
        reason: `The next renewal ${when} (${basis}).`,
        overdue_days: null,
        basis: 'cadence',
      },
      expectedRenewalAt: expected,
      renewBy,
    };
  }
  const overdue = Math.floor(daysBetween(expected, now));
  const left = daysLeft(current, now);
  const threshold = Math.max(STALL_MIN_DAYS_LEFT, lifetime / DAY_MS / 6);
  const status = left <= threshold ? 'stalled' : 'watch';
  const expiry =
    left < 0 ? `the certificate expired ${Math.ceil(-left)} days ago` : `${Math.floor(left)} days are left`;
  const reason =
    status === 'stalled'
      ? `No renewal has appeared in CT ${overdue} days after it was due on ${expectedText} (${basis}) and ${expiry}.`
      : `A renewal was due on ${expectedText} (${basis}) but none has appeared in CT for ${overdue} days; ${expiry}.`;
  return {
    stall: { status, reason, overdue_days: overdue, basis: 'cadence' },
    expectedRenewalAt: expected,
    renewBy,
  };
}
