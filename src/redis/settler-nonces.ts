/**
 * The account nonces of one settler wallet shared by every instance. A lease per wallet is held
 * from the moment a nonce is assigned until its transaction has been handed to the node; under it
 *
 *   nonce = max(the chain's pending nonce, the next nonce the store remembers)
 *
 * and the store remembers nonce + 1 before anything is signed. The chain's count is the floor: it
 * covers what any instance (or anything else holding the key) has sent, and a store restarted
 * empty falls back to it. The store's count covers what was sent a moment ago and is not yet
 * counted by the node answering (a load-balanced RPC). Holding the lease through the send means
 * that when a nonce is reissued (`reissue`: our transaction is known never to be used), the next
 * holder reads the chain only once every nonce assigned before has reached the node.
 *
 * The lease is short and renewed by its live holder (`keepRenewed`), so a holder killed mid-send
 * frees the wallet within `LEASE_MS`. The chain's count behind the store's is a nonce assigned to a
 * settlement whose transaction never reached the node: its instance died before the send, or the
 * send failed. That transaction is never sent by anyone else: its paid call has no one left to
 * deliver the result, so sending it would charge the payer for nothing. The next holder fills the
 * gap with a transfer of 0 ETH from the settler to itself at that nonce (it charges no payer and
 * makes the abandoned transaction unusable), then sends its own.
 *
 * Settlements of one wallet go out one at a time fleet-wide, at one pending-nonce read and one send
 * each (and a store round trip or three).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { keepRenewed, LEASE_MS } from '../payments/lock-lease.ts';
import type { SettlerNoncesFor } from '../payments/settler-nonces.ts';
import { luaScript, releaseIfHeld, renewIfHeld, type SharedStore } from './connection.ts';

/** A settlement waits this long at most for the wallet's lease before it gives up, having sent nothing. */
const LEASE_WAIT_MS = 10_000;
const LEASE_POLL_MS = 5;
/** A remembered next nonce older than this is left to the chain's count again. */
const NEXT_NONCE_TTL_MS = 10 * 60_000;
/** Most missing nonces filled before one's own. */
const MAX_FILLED = 16;

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
  return (wallet, { pendingNonce, filler }) => {
    const base = `wallet:${wallet.chainId}:${wallet.address.toLowerCase()}`;
    const leaseKey = `${base}:lease`;
    const nextKey = `${base}:next`;

    /** Runs `work` holding the wallet's lease, renewed until `work` ends. */
    async function leased<T>(work: (token: string) => Promise<T>): Promise<T> {
      const token = randomUUID();
      const deadline = performance.now() + LEASE_WAIT_MS;
      while ((await redis.set(leaseKey, token, 'PX', LEASE_MS, 'NX')) !== 'OK') {
        if (performance.now() > deadline)
          throw new Error('the settler wallet stayed leased by another settlement');
        await sleep(LEASE_POLL_MS + Math.random() * LEASE_POLL_MS);
      }
      const stop = keepRenewed(
        () => renewIfHeld(redis, [leaseKey], token, LEASE_MS),
        (error) => logger.warn({ err: error }, 'could not renew the settler wallet lease'),
      );
      try {
        return await work(token);
      } finally {
        stop();
        await releaseIfHeld(redis, [leaseKey], token).catch((error: unknown) =>
          logger.warn({ err: error }, 'could not release the settler wallet lease'),
        );
      }
    }

    return {
      send: (sign, broadcast) =>
        leased(async (token) => {
          const pending = await pendingNonce();
          const [nonce, next] = (await assign(
            redis,
            [leaseKey, nextKey],
            token,
            pending,
            NEXT_NONCE_TTL_MS,
          )) as [number, number];
          if (nonce < 0) throw new Error('the settler wallet lease expired before a nonce was assigned');
          for (let gap = pending; gap < Math.min(next, pending + MAX_FILLED); gap += 1) {
            // Another transaction may have taken the nonce meanwhile (a slow node): then nothing is lost.
            await filler(gap)
              .then(broadcast)
              .catch((error: unknown) =>
                logger.warn({ err: error, nonce: gap }, 'could not fill a settler nonce gap'),
              );
          }
          const raw = await sign(nonce);
          await broadcast(raw);
          return raw;
        }),
      reissue: () => leased(async () => void (await redis.del(nextKey))),
    };
  };
}
