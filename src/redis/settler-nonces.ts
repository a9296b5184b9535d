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
 * node, so the gap is filled and nothing in flight is numbered twice.
 *
 * Each signed transaction is also kept for a settlement's lifetime, so the chain's count behind the
 * store's (a transaction of another instance that never reached the node, and every later one
 * queued behind it) is mended by the next holder: it hands the node the missing ones again before
 * its own. One instance's failed send then does not hold the whole fleet's settlements back.
 *
 * Settlements of one wallet go out one at a time fleet-wide, at one pending-nonce read and one send
 * each (and a store round trip or three).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { SETTLEMENT_MAX_MS } from '../payments/settlement.ts';
import type { SettlerNoncesFor } from '../payments/settler-nonces.ts';
import { luaScript, releaseIfHeld, type SharedStore } from './connection.ts';

/** Longer than a pending-nonce read and a send, each two tries of 3 s at most (`RPC_CALL_TIMEOUT_MS`). */
export const WALLET_LEASE_MS = 20_000;
/** A settlement waits this long at most for the wallet's lease before it gives up, having sent nothing. */
const LEASE_WAIT_MS = 10_000;
const LEASE_POLL_MS = 5;
/** A remembered next nonce older than this is left to the chain's count again. */
const NEXT_NONCE_TTL_MS = 10 * 60_000;
/** Most missing transactions handed to the node again before one's own. */
const MAX_MENDED = 16;

/**
 * KEYS: lease, next; ARGV: token, the chain's pending nonce, TTL. `{ nonce, next before }`, the store
 * remembering the nonce after this one; `{ -1 }` when the lease is no longer ours (it expired while
 * the chain was slow).
 */
const assign = luaScript(`if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {-1, 0} end
local next = tonumber(redis.call('GET', KEYS[2]) or '0')
local nonce = math.max(next, tonumber(ARGV[2]))
redis.call('SET', KEYS[2], nonce + 1, 'PX', ARGV[3])
return {nonce, next}`);

export function redisSettlerNonces(store: SharedStore, logger: Logger): SettlerNoncesFor {
  const { redis } = store;
  return (wallet, { pendingNonce }) => {
    const base = `wallet:${wallet.chainId}:${wallet.address.toLowerCase()}`;
    const leaseKey = `${base}:lease`;
    const nextKey = `${base}:next`;
    const sentKey = (nonce: number) => `${base}:tx:${nonce}`;

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
      async send(sign, broadcast) {
        const token = await lease();
        try {
          const pending = await pendingNonce();
          const [nonce, next] = (await assign(
            redis,
            [leaseKey, nextKey],
            token,
            pending,
            NEXT_NONCE_TTL_MS,
          )) as [number, number];
          if (nonce < 0) throw new Error('the settler wallet lease expired before a nonce was assigned');
          if (pending < next) {
            const missing = Array.from(
              { length: Math.min(next - pending, MAX_MENDED) },
              (_, i) => pending + i,
            );
            for (const raw of await redis.mget(missing.map(sentKey))) {
              if (raw) await broadcast(raw as `0x${string}`).catch(() => {});
            }
          }
          const raw = await sign(nonce);
          // A signed transaction is public once sent; it is kept only to be sent again.
          await redis.set(sentKey(nonce), raw, 'PX', SETTLEMENT_MAX_MS).catch(() => {});
          await broadcast(raw);
          return raw;
        } finally {
          await releaseIfHeld(redis, [leaseKey], token).catch((error: unknown) =>
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
