/**
 * A deadline as an `AbortSignal`, like `AbortSignal.timeout`, whose timer is cleared once the work
 * is done. `AbortSignal.timeout`'s timer cannot be cleared: it fires when its time comes whatever
 * became of the call, and aborting then (a `DOMException`, the signal's listeners, undici's fetch
 * listener) costs main-thread time inside other requests' windows. A site-health check leaves ~30
 * such timers, its DoH questions' 3 s deadlines among them.
 */
export interface Deadline {
  signal: AbortSignal;
  /** Stops the timer; the signal then never aborts by time. */
  clear(): void;
}

export function deadlineAfter(ms: number): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    ms,
  );
  // Like `AbortSignal.timeout`'s, the timer does not keep a Node process alive on its own.
  if (typeof timer === 'object') timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** Runs `work` under a deadline of `ms`, cleared once the work has settled. */
export async function withDeadline<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const deadline = deadlineAfter(ms);
  try {
    return await work(deadline.signal);
  } finally {
    deadline.clear();
  }
}
