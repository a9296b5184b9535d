/**
 * The free-work limit on Workers: one Durable Object per client key (an IPv4 address or an IPv6
 * /64) holds that client's token bucket, so every isolate and every location serving the client
 * takes from the same bucket, with one clock. The bucket lives in the object's memory only: an
 * object is evicted after a minute or more without requests, by when the bucket has refilled (at the
 * default rate), and an evicted object starts full, as an address forgotten by Node's LRU does; a
 * storage write per free request would cost more than the request.
 */
import { DurableObject, type DurableObjectNamespace } from 'cloudflare:workers';
import { type Bucket, type BucketTake, type RateBuckets, takeFrom } from '../ops/rate-buckets.ts';

export class RateBucketObject extends DurableObject {
  #bucket: Bucket | undefined;

  take(burst: number, perMs: number): BucketTake {
    const now = Date.now();
    this.#bucket ??= { tokens: burst, at: now };
    return takeFrom(this.#bucket, burst, perMs, now);
  }
}

/** `RateBuckets` in `RateBucketObject`s; the objects' clock rather than each isolate's `now`. */
export function durableRateBuckets(namespace: DurableObjectNamespace<RateBucketObject>): RateBuckets {
  return {
    // Awaited here: an RPC call answers a thenable that is no `Promise`, which the limiter would
    // take for a synchronous answer.
    async take(client, burst, perMs) {
      return await namespace.get(namespace.idFromName(client)).take(burst, perMs);
    },
  };
}
