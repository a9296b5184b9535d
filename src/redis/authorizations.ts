/**
 * The in-flight lock and the lost results of every instance, in Redis: the same semantics as the
 * Worker's `AuthorizationObject`. A lock is a key set only if absent, with a short lease (`LEASE_MS`)
 * its holder renews while it runs, so a lock left by a holder that died frees itself within seconds;
 * it is released only by the token that took it. A lost result (or a settlement begun) is a hash with
 * a digest of the payload signature, claimed (compared, and deleted if a receipt) in one script, so it
 * is handed out once fleet-wide.
 */
import { randomUUID } from 'node:crypto';
import type { SettleResponse } from '@x402/core/types';
import type { Logger } from 'pino';
import type { InFlightLock } from '../payments/in-flight-lock.ts';
import { keepRenewed, LEASE_MS } from '../payments/lock-lease.ts';
import {
  type Claimed,
  REDELIVERY_WINDOW_MS,
  SETTLING_RECORD_MS,
  signatureDigest as digest,
  type Undelivered,
} from '../payments/undelivered.ts';
import { luaScript, releaseIfHeld, renewIfHeld, type SharedStore } from './connection.ts';

/**
 * KEYS[1] the record; ARGV[1] the signature digest. A receipt is returned and the record deleted;
 * a settlement begun returns `{ 'settling', resource }` and stays; anything else false.
 */
const claimLost = luaScript(`if redis.call('HGET', KEYS[1], 'signature') ~= ARGV[1] then return false end
local receipt = redis.call('HGET', KEYS[1], 'receipt')
if receipt then
  redis.call('DEL', KEYS[1])
  return receipt
end
return {'settling', redis.call('HGET', KEYS[1], 'resource') or ''}`);

const lockKey = (key: string) => `lock:${key}`;
const lostKey = (key: string) => `lost:${key}`;

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
        const stop = keepRenewed(
          () => renewIfHeld(redis, [lockKey(key)], token, LEASE_MS),
          (error) => logger.warn({ err: error }, 'could not renew a payment lock'),
        );
        let released = false;
        return async () => {
          if (released) return;
          released = true;
          stop();
          // A release that does not land leaves the lease to expire on its own (≤ LEASE_MS); the
          // answer to the client must not wait on, or fail with, the store.
          await releaseIfHeld(redis, [lockKey(key)], token).catch((error: unknown) =>
            logger.warn({ err: error }, 'could not release a payment lock'),
          );
        };
      },
    },
    undelivered: {
      async settling(key, signature, resource) {
        await redis
          .multi()
          .del(lostKey(key))
          .hset(lostKey(key), { signature: digest(signature), resource })
          .pexpire(lostKey(key), SETTLING_RECORD_MS)
          .exec()
          .then(failedIn);
      },
      async settled(key) {
        await redis.del(lostKey(key));
      },
      async remember(key, signature, receipt) {
        await redis
          .multi()
          .del(lostKey(key))
          .hset(lostKey(key), { signature: digest(signature), receipt: JSON.stringify(receipt) })
          .pexpire(lostKey(key), REDELIVERY_WINDOW_MS)
          .exec()
          .then(failedIn);
      },
      async claim(key, signature, resource): Promise<Claimed> {
        const found = await claimLost(redis, [lostKey(key)], digest(signature));
        if (typeof found === 'string') return JSON.parse(found) as SettleResponse;
        if (!Array.isArray(found)) return null;
        const [, settlingFor] = found as [string, string];
        return resource === undefined || settlingFor === resource ? 'interrupted' : null;
      },
    },
  };
}

/** A transaction (MULTI) one of whose commands failed is a failed write. */
function failedIn(results: [Error | null, unknown][] | null): void {
  const failed = results?.find(([error]) => error !== null)?.[0];
  if (!results || failed) throw failed ?? new Error('the transaction was discarded');
}
