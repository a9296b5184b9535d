/** Waiting on work that cannot itself be cancelled, but only until a deadline. */

/** Settles with `undefined` when `signal` aborts first (the work itself keeps running). */
export function beforeAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  const aborted = new Promise<undefined>((resolve) => {
    if (signal.aborted) resolve(undefined);
    signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });
  return Promise.race([work, aborted]);
}
