/**
 * How a shared in-flight lock is leased: briefly, and renewed by its holder for as long as it holds
 * it. A lock left by a process or isolate that died (`kill -9`, an evicted isolate) frees itself
 * within `LEASE_MS`, so a copy of the payment sent to another instance is served seconds later
 * instead of answering 409 for the whole length of a paid call.
 */

/** A lease not renewed ends after this. */
export const LEASE_MS = 8_000;
/** A holder renews its lease this often: three renewals may fail before it ends. */
export const LEASE_RENEW_MS = 2_000;

/**
 * Calls `renew` every `everyMs` (default `LEASE_RENEW_MS`) until the returned function is called; a
 * failed renewal is reported to `onError` and tried again at the next tick. The timer does not keep
 * a process alive.
 */
export function keepRenewed(
  renew: () => Promise<unknown>,
  onError: (error: unknown) => void,
  everyMs = LEASE_RENEW_MS,
): () => void {
  const timer = setInterval(() => void renew().catch(onError), everyMs);
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}
