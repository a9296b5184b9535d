/**
 * The free-work limit's token buckets shared by every instance (`REDIS_URL`): one hash per client
 * key, taken from in one script on the server's clock (`TIME`), so instances with skewed clocks
 * share one refill, as the Worker's `RateBucketObject` does with the object's clock. A bucket is
 * forgotten once it would be full again (its TTL), which is where a forgotten bucket starts.
 */
import type { RateBuckets } from '../ops/rate-buckets.ts';
import { luaScript, type SharedStore } from './connection.ts';

/** KEYS: bucket; ARGV: burst, tokens per millisecond, TTL. `{ allowed (0/1), tokens left (a string: fractional) }`. */
const takeToken = luaScript(`local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local burst, perMs = tonumber(ARGV[1]), tonumber(ARGV[2])
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(bucket[1]), tonumber(bucket[2])
if not tokens or not at then tokens, at = burst, now end
if now > at then tokens, at = math.min(burst, tokens + (now - at) * perMs), now end
local allowed = 0
if tokens >= 1 then tokens, allowed = tokens - 1, 1 end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', at)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {allowed, string.format('%.17g', tokens)}`);

export function redisRateBuckets(store: SharedStore): RateBuckets {
  return {
    // The server's clock, not `now`: one clock for the fleet.
    async take(client, burst, perMs) {
      const refillMs = Math.ceil(burst / perMs) + 1_000;
      const [allowed, tokens] = (await takeToken(
        store.redis,
        [`bucket:${client}`],
        burst,
        perMs,
        refillMs,
      )) as [number, string];
      return { allowed: allowed === 1, tokens: Number(tokens) };
    },
  };
}
