/**
 * The chain's clock, as the token contract reads it: an authorization's `validAfter` and
 * `validBefore` are judged against the block that includes its transfer, so an instance judges them
 * against the chain's time rather than its own clock, which may be off by minutes. The chain's time
 * is read now and then (its pending block, or the latest); between reads it is our clock corrected
 * by the skew last measured.
 */
import { withRpcDeadline } from './rpc-deadline.ts';

/** A skew below this is block-time granularity and propagation, not a clock that is off. */
const SKEW_IGNORED_MS = 2_000;
/** How old the last reading may get before a payment judged by it has it read again (in the background). */
export const CHAIN_TIME_MAX_AGE_MS = 30_000;
/** How long one read of the chain's time may take. */
export const CHAIN_TIME_READ_MS = 2_000;
/**
 * A read unsettled this long after it started is forgotten and the next refresh reads anew: a read
 * lost with the request that started it (a Worker's request context ends, and its fetch with it)
 * never settles, and must not leave every later refresh waiting on it.
 */
export const CHAIN_TIME_READ_PATIENCE_MS = CHAIN_TIME_READ_MS + 1_000;

export interface ChainClock {
  /** Now on the chain's clock, in milliseconds. */
  now(): number;
  /** Our clock minus the chain's, in ms, as last measured; undefined until the chain has answered. */
  skewMs(): number | undefined;
  /**
   * Reads the chain's time again unless it was read within `maxAgeMs`; resolves with whether the
   * chain answered (the last read, when a fresh one was not needed).
   */
  refresh(maxAgeMs: number): Promise<boolean>;
}

/** `readTime` answers the chain's time in seconds; `localNow` is our clock. */
export function chainClock(readTime: () => Promise<bigint>, localNow: () => number = Date.now): ChainClock {
  let skew: number | undefined;
  let readAt = -Infinity;
  let answered = false;
  let reading: { answered: Promise<boolean>; since: number } | undefined;
  const read = async () => {
    const before = localNow();
    try {
      const seconds = await withRpcDeadline(Date.now() + CHAIN_TIME_READ_MS, readTime);
      const after = localNow();
      // A block's timestamp is whole seconds: the chain's now lies within the second after it.
      skew = (before + after) / 2 - (Number(seconds) * 1000 + 500);
      answered = true;
    } catch {
      answered = false;
    }
    readAt = localNow();
    return answered;
  };
  return {
    now: () => localNow() - (skew !== undefined && Math.abs(skew) >= SKEW_IGNORED_MS ? skew : 0),
    skewMs: () => skew,
    refresh(maxAgeMs) {
      const now = localNow();
      if (now - readAt < maxAgeMs) return Promise.resolve(answered);
      if (reading && now - reading.since < CHAIN_TIME_READ_PATIENCE_MS) return reading.answered;
      const current = {
        since: now,
        answered: read().finally(() => {
          if (reading === current) reading = undefined;
        }),
      };
      reading = current;
      return current.answered;
    },
  };
}
