/**
 * The webhook retry schedule (after the first attempt: 5 s, 30 s, 2 min, 10 min, 1 h, 3 h, 6 h,
 * 12 h, then given up), measured in watch days: `WATCH_DAY_S` shortens it in tests as it
 * shortens a watch's days. Standard Webhooks 1.0 recommends retrying with backoff for about a day or more.
 */

/** Delays in seconds of a real day (86,400 s) before retry 1, 2, … */
export const RETRY_DELAYS_S = [5, 30, 120, 600, 3600, 10_800, 21_600, 43_200] as const;

/** Most attempts one event gets at one URL: the first and every retry. */
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;

const REAL_DAY_S = 86_400;

/**
 * The delay in milliseconds before the next attempt once `attemptsMade` attempts have failed, or
 * null when the event is given up.
 */
export function retryDelayMs(attemptsMade: number, dayS: number): number | null {
  const delay = RETRY_DELAYS_S[attemptsMade - 1];
  if (delay === undefined) return null;
  return Math.max(1, Math.round((delay * dayS * 1000) / REAL_DAY_S));
}
