/**
 * Where the free-work limit keeps its token buckets, one per client: this process's memory by
 * default (`memoryRateBuckets`), or a store every instance shares, chosen by the entry point
 * (`Platform.rateBuckets`).
 */
import { LRUCache } from 'lru-cache';

/** Most client addresses whose buckets are kept in memory. */
export const RATE_LIMIT_MAX_CLIENTS = 10_000;

/** One take: whether a token was taken, and the tokens left in the bucket after it (fractional). */
export interface BucketTake {
  allowed: boolean;
  tokens: number;
}

/**
 * Every store of buckets has this one shape: in memory, in Redis (`src/redis/rate-buckets.ts`) and in
 * the Worker's Durable Objects (`src/edge/rate-bucket-object.ts`).
 */
export interface RateBuckets {
  /**
   * Refills `client`'s bucket at `perMs` tokens a millisecond since its last take, up to `burst` (a
   * bucket never seen, or forgotten, starts full), as of `now` (epoch milliseconds), then takes one
   * token if a whole one is there. A `Promise` (a real one: the limiter tells the two apart with
   * `instanceof`) only when the store is not in this process: the in-memory store answers at once,
   * so free requests on one instance take no asynchronous step (bench/README.md, "The free-work
   * limit").
   */
  take(client: string, burst: number, perMs: number, now: number): BucketTake | Promise<BucketTake>;
}

/** One client's bucket: its tokens as of `at` (epoch milliseconds). */
export interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Buckets in a bounded LRU, so that any number of addresses costs bounded memory (an evicted client
 * starts again with a full bucket). Answers synchronously.
 */
export function memoryRateBuckets(maxClients = RATE_LIMIT_MAX_CLIENTS): RateBuckets {
  const buckets = new LRUCache<string, Bucket>({ max: maxClients });
  return {
    take(client, burst, perMs, now) {
      let bucket = buckets.get(client);
      if (!bucket) {
        bucket = { tokens: burst, at: now };
        buckets.set(client, bucket);
      }
      return takeFrom(bucket, burst, perMs, now);
    },
  };
}

/**
 * `RateBuckets.take` on one bucket, which it updates. A clock that went back (another instance's)
 * refills nothing and keeps the later time.
 */
export function takeFrom(bucket: Bucket, burst: number, perMs: number, now: number): BucketTake {
  if (now > bucket.at) {
    bucket.tokens = Math.min(burst, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
  }
  const allowed = bucket.tokens >= 1;
  if (allowed) bucket.tokens -= 1;
  return { allowed, tokens: bucket.tokens };
}

/**
 * `store`, asked only when it could say yes: a client it refused is refused here, without asking it
 * again, until its next whole token is due (a bucket gains tokens only with time, so the store would
 * refuse until then too). A flood from one client then costs a shared store about one call per
 * instance per token, not one per request.
 */
export function rememberRefusals(store: RateBuckets, maxClients = RATE_LIMIT_MAX_CLIENTS): RateBuckets {
  const refused = new LRUCache<string, Bucket>({ max: maxClients });
  return {
    take(client, burst, perMs, now) {
      const known = refused.get(client);
      if (known) {
        const tokens = known.tokens + (now - known.at) * perMs;
        if (tokens < 1) return { allowed: false, tokens };
        refused.delete(client);
      }
      const remember = (taken: BucketTake): BucketTake => {
        if (!taken.allowed) refused.set(client, { tokens: taken.tokens, at: now });
        return taken;
      };
      const taken = store.take(client, burst, perMs, now);
      return taken instanceof Promise ? taken.then(remember) : remember(taken);
    },
  };
}
