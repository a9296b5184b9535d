/**
 * The pace at which one CA is asked: a token bucket far below Let's Encrypt's published limit
 * (1000 requests/s per IP, burst 100), and a pause while the CA has said `Retry-After` on a 429/503.
 */

/** Requests per second to one CA, and the burst allowed at once. */
export const ARI_PACE_PER_SECOND = 20;
export const ARI_PACE_BURST = 20;

export interface Pace {
  /**
   * Takes the next slot if it comes within `maxWaitMs`: the milliseconds to wait before asking, or
   * null (no slot taken) when the CA would be asked too fast or is paused past that.
   */
  reserve(maxWaitMs: number): number | null;
  /** Asks nothing before `untilMs` (the clock's time), e.g. for a 429's `Retry-After`. */
  pauseUntil(untilMs: number): void;
}

export interface PaceOptions {
  perSecond?: number;
  burst?: number;
  /** Monotonic clock in milliseconds. */
  clock?: () => number;
}

export function createPace(options: PaceOptions = {}): Pace {
  const { perSecond = ARI_PACE_PER_SECOND, burst = ARI_PACE_BURST } = options;
  const clock = options.clock ?? (() => performance.now());
  const perMs = perSecond / 1000;
  let tokens = burst;
  let at = clock();
  let pausedUntil = Number.NEGATIVE_INFINITY;

  return {
    reserve(maxWaitMs) {
      const now = clock();
      tokens = Math.min(burst, tokens + (now - at) * perMs);
      at = now;
      const wait = Math.max(tokens >= 1 ? 0 : (1 - tokens) / perMs, pausedUntil - now);
      if (wait > maxWaitMs) return null;
      // A token may go negative: later callers wait behind the ones already queued.
      tokens -= 1;
      return wait;
    },
    pauseUntil(untilMs) {
      pausedUntil = Math.max(pausedUntil, untilMs);
    },
  };
}
