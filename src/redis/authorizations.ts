/**
 * The in-flight lock and the lost results of every instance, in Redis: the same semantics as the
 * Worker's `AuthorizationObject`. A lock is a key set only if absent, with a lease (`LEASE_MS`) that
 * frees it should its holder die, released only by the token that took it; a lost result is a hash
 * with the receipt and a digest of the payload signature, claimed (compared and deleted) in one
 * script, so it is handed out once fleet-wide.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { SettleResponse } from '@x402/core/types';
import type { Logger } from 'pino';
import type { InFlightLock } from '../payments/in-flight-lock.ts';
import { LEASE_MS } from '../payments/lock-lease.ts';
import { REDELIVERY_WINDOW_MS, type Undelivered } from '../payments/undelivered.ts';
import { luaScript, releaseIfHeld, type SharedStore } from './connection.ts';

/** Returns and deletes the receipt of KEYS[1] if its signature digest is ARGV[1]. */
const claimLost = luaScript(`if redis.call('HGET', KEYS[1], 'signature') ~= ARGV[1] then return false end
local receipt = redis.call('HGET', KEYS[1], 'receipt')
redis.call('DEL', KEYS[1])
return receipt`);

const lockKey = (key: string) => `lock:${key}`;
const lostKey = (key: string) => `lost:${key}`;

/**
 * The payment signature is not stored (anyone holding it could still submit the authorization
 * while it is unused): a claim compares digests.
 */
const digest = (signature: string) => createHash('sha256').update(signature).digest('hex');

export function redisAuthorizations(
  store: SharedStore,
  logger: Logger,
): { lock: InFlightLock; undelivered: Undelivered } {
  const { redis } = store;
  return {
    lock: {
      async acquire(key) {
        const token = randomUUID();
        const taken = await redis.set(lockKey(key), token, 'PX', LEASE_MS, 'NX');
        if (taken !== 'OK') return null;
        let released = false;
        return async () => {
          if (released) return;
          released = true;
          // A release that does not land leaves the lease to expire on its own (≤ LEASE_MS); the
          // answer to the client must not wait on, or fail with, the store.
          await releaseIfHeld(redis, [lockKey(key)], token).catch((error: unknown) =>
            logger.warn({ err: error }, 'could not release a payment lock'),
          );
        };
      },
    },
    undelivered: {
      async remember(key, signature, receipt) {
        await redis
          .multi()
          .hset(lostKey(key), { signature: digest(signature), receipt: JSON.stringify(receipt) })
          .pexpire(lostKey(key), REDELIVERY_WINDOW_MS)
          .exec();
      },
      async claim(key, signature) {
        const receipt = await claimLost(redis, [lostKey(key)], digest(signature));
        return typeof receipt === 'string' ? (JSON.parse(receipt) as SettleResponse) : null;
      },
    },
  };
}
