/**
 * The in-flight lock and the lost results of every instance, in Redis: the same semantics as the
 * Worker's `AuthorizationObject`. A lock is a key set only if absent, with a short lease (`LEASE_MS`)
 * its holder renews while it runs, so a lock left by a holder that died frees itself within seconds;
 * it is released only by the token that took it. A lost result (or a settlement begun) is a hash with
 * a digest of the payload signature; a claim only reads it (under the lock), and it is deleted once
 * its result is handed over, so it is handed out once fleet-wide and a claim whose reply is lost
 * loses nothing.
 */
import { randomUUID } from 'node:crypto';
import type { SettleResponse } from '@x402/core/types';
import type { Logger } from 'pino';
import type { InFlightLock } from '../payments/server/in-flight-lock.ts';
import { keepRenewed, LEASE_MS } from '../payments/server/lock-lease.ts';
import {
  type Claimed,
  claimOf,
  REDELIVERY_WINDOW_MS,
  SETTLING_RECORD_MS,
  signatureDigest as digest,
  type Undelivered,
} from '../payments/server/undelivered.ts';
import { releaseIfHeld, renewIfHeld, type SharedStore } from './connection.ts';

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
      async remember(key, signature, receipt, delivered = false) {
        const fields = { signature: digest(signature), receipt: JSON.stringify(receipt) };
        await redis
          .multi()
          .del(lostKey(key))
          .hset(lostKey(key), delivered ? { ...fields, delivered: '1' } : fields)
          .pexpire(lostKey(key), REDELIVERY_WINDOW_MS)
          .exec()
          .then(failedIn);
      },
      async claim(key, signature, resource): Promise<Claimed> {
        // A read: run twice (a reply lost, the payer's retry), it finds the same record.
        const [stored, receipt, settlingFor, delivered] = await redis.hmget(
          lostKey(key),
          'signature',
          'receipt',
          'resource',
          'delivered',
        );
        if (!stored) return null;
        const entry = receipt
          ? {
              signature: stored,
              receipt: JSON.parse(receipt) as SettleResponse,
              delivered: delivered === '1',
            }
          : { signature: stored, resource: settlingFor ?? '' };
        return claimOf(entry, digest(signature), resource);
      },
    },
  };
}

/** A transaction (MULTI) one of whose commands failed is a failed write. */
function failedIn(results: [Error | null, unknown][] | null): void {
  const failed = results?.find(([error]) => error !== null)?.[0];
  if (!results || failed) throw failed ?? new Error('the transaction was discarded');
}
