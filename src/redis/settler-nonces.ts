/**
 * The account nonces of one settler wallet shared by every instance. A lease per wallet is held
 * from the moment a nonce is assigned until its transaction has been handed to the node; under it
 *
 *   nonce = max(the chain's pending nonce, the next nonce the store remembers)
 *
 * and the store remembers nonce + 1 before anything is signed. The chain's count covers what any
 * instance (or anything else holding the key) has sent; the store's covers what was sent a moment
 * ago and is not yet counted by the node answering (a load-balanced RPC). Holding the lease through
 * the send means that when a nonce is reissued (`reissue`: our transaction is known never to be
 * used), the next holder reads the chain only once every nonce assigned before has reached the
 * node, so the gap is filled and nothing in flight is numbered twice. Settlements of one wallet thus
 * go out one at a time fleet-wide, at one pending-nonce read and one send each.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { SettlerNoncesFor } from '../payments/settler-nonces.ts';
import { RELEASE_IF_HELD, type SharedStore } from './connection.ts';

/** Longer than a pending-nonce read and a send, each two tries of 3 s at most (`RPC_CALL_TIMEOUT_MS`). */
export const WALLET_LEASE_MS = 20_000;
/** A settlement waits this long at most for the wallet's lease before it gives up, having sent nothing. */
const LEASE_WAIT_MS = 10_000;
const LEASE_POLL_MS = 5;
/** A remembered next nonce older than this is left to the chain's count again. */
const NEXT_NONCE_TTL_MS = 10 * 60_000;

/**
 * KEYS: lease, next; ARGV: token, the chain's pending nonce, TTL. The nonce to use, remembering the
 * one after it; -1 when the lease is no longer ours (it expired while the chain was slow).
 */
const ASSIGN = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local nonce = math.max(tonumber(redis.call('GET', KEYS[2]) or '0'), tonumber(ARGV[2]))
redis.call('SET', KEYS[2], nonce + 1, 'PX', ARGV[3])
return nonce`;

export function redisSettlerNonces(store: SharedStore, logger: Logger): SettlerNoncesFor {
  const { redis } = store;
  return (wallet, { pendingNonce }) => {
    const base = `wallet:${wallet.chainId}:${wallet.address.toLowerCase()}`;
    const leaseKey = `${base}:lease`;
    const nextKey = `${base}:next`;

    async function lease(): Promise<string> {
      const token = randomUUID();
      const deadline = performance.now() + LEASE_WAIT_MS;
      while ((await redis.set(leaseKey, token, 'PX', WALLET_LEASE_MS, 'NX')) !== 'OK') {
        if (performance.now() > deadline)
          throw new Error('the settler wallet stayed leased by another settlement');
        await sleep(LEASE_POLL_MS + Math.random() * LEASE_POLL_MS);
      }
      return token;
    }

    return {
      async send(send) {
        const token = await lease();
        try {
          const pending = await pendingNonce();
          const nonce = Number(
            await redis.eval(ASSIGN, 2, leaseKey, nextKey, token, pending, NEXT_NONCE_TTL_MS),
          );
          if (nonce < 0) throw new Error('the settler wallet lease expired before a nonce was assigned');
          return await send(nonce);
        } finally {
          await redis
            .eval(RELEASE_IF_HELD, 1, leaseKey, token)
            .catch((error: unknown) =>
              logger.warn({ err: error }, 'could not release the settler wallet lease'),
            );
        }
      },
      reissue() {
        redis
          .del(nextKey)
          .catch((error: unknown) => logger.warn({ err: error }, 'could not reissue the settler nonce'));
      },
    };
  };
}
