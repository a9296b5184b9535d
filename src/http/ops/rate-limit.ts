/**
 * The limit on free work: one token bucket per client address (`burst` requests at once, refilled
 * at `perMinute`), kept in `RateBuckets` (this process's memory unless the entry point shares a
 * store). Over the limit: 429 problem JSON with `Retry-After`; every limited answer carries
 * `RateLimit-Limit`, `-Remaining`, `-Reset` and `RateLimit-Policy`
 * (draft-ietf-httpapi-ratelimit-headers).
 */
import type { Context } from 'hono';
import { addStandardHeaders, type HeaderEntry } from '../hygiene/standard-headers.ts';
import { PROBLEM_CODES } from '../../vocabulary/problems.ts';
import { sendProblem } from '../send-problem.ts';
import type { ClientKey } from '../../ops/client-address.ts';
import type { Metrics } from '../../ops/metrics.ts';
import { type BucketTake, memoryRateBuckets, type RateBuckets } from '../../ops/rate-buckets.ts';

/** At most one log line a minute about a bucket store that fails. */
const STORE_FAILURE_LOG_MS = 60_000;

export interface RateLimitOptions {
  burst: number;
  perMinute: number;
  /** Whose bucket a request takes from. */
  client: ClientKey;
  metrics: Metrics;
  /** Which requests are free work (the others pass untouched); a promise only when it must read the body. */
  applies: (c: Context) => boolean | Promise<boolean>;
  /** Where the buckets are kept; default: this process's memory. */
  buckets?: RateBuckets;
  /**
   * Told when the bucket store fails (at most once a minute). The request is let through then: free
   * work is not refused because the store is down.
   */
  onStoreFailure?: (error: unknown) => void;
  /** Epoch milliseconds. */
  now?: () => number;
}

export interface RateLimiter {
  /**
   * Takes a token for free work: adds the rate-limit headers to the request's standard headers, and
   * returns the 429 answer when none was left. A promise only when `applies` or the bucket store is
   * asynchronous.
   */
  limit(c: Context): Response | undefined | Promise<Response | undefined>;
}

export function createRateLimiter(options: RateLimitOptions): RateLimiter {
  const { burst, perMinute, client, metrics, applies, now = Date.now } = options;
  const perMs = perMinute / 60_000;
  const buckets = options.buckets ?? memoryRateBuckets();
  const limitHeader: HeaderEntry = ['ratelimit-limit', String(burst)];
  const policyHeader: HeaderEntry = ['ratelimit-policy', `${burst};w=${Math.ceil(burst / perMs / 1000)}`];
  let lastFailureLog = -Infinity;

  function storeFailed(error: unknown): undefined {
    const at = now();
    if (at - lastFailureLog >= STORE_FAILURE_LOG_MS) {
      lastFailureLog = at;
      options.onStoreFailure?.(error);
    }
    return undefined;
  }

  function take(c: Context): Response | undefined | Promise<Response | undefined> {
    const key = client(c);
    if (key === undefined) return undefined;
    const taken = buckets.take(key, burst, perMs, now());
    if (taken instanceof Promise) return taken.then((result) => answer(c, result), storeFailed);
    return answer(c, taken);
  }

  function answer(c: Context, { allowed, tokens }: BucketTake): Response | undefined {
    addStandardHeaders(c, [
      limitHeader,
      policyHeader,
      ['ratelimit-remaining', String(Math.floor(tokens))],
      ['ratelimit-reset', String(Math.ceil((burst - tokens) / perMs / 1000))],
    ]);
    if (allowed) return undefined;
    metrics.rateLimited();
    const retryAfter = Math.ceil((1 - tokens) / perMs / 1000);
    return sendProblem(
      c,
      {
        status: 429,
        code: PROBLEM_CODES.rateLimited,
        title: 'Too many requests',
        detail: `Free requests from one address are limited to ${burst} at once and ${perMinute} a minute; retry in ${retryAfter} s. Paid requests are not limited.`,
      },
      { 'retry-after': String(retryAfter) },
    );
  }

  return {
    limit(c) {
      if (burst === 0) return undefined;
      const free = applies(c);
      if (free instanceof Promise) return free.then((yes) => (yes ? take(c) : undefined));
      return free ? take(c) : undefined;
    },
  };
}
