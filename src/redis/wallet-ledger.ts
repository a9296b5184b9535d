/**
 * The `WalletLedger` every Node instance with `REDIS_URL` shares:
 *
 *   wallet:{payer}:watches   zset   "{boughtAt, 15 digits}:{id}", all scored 0 (lexical order is time order)
 *   sign-in-nonce:{nonce}    string accepted once (SET NX), expiring with the nonce itself: "1", or
 *                                   "for:{payment}" when a paid call spent it for its payment
 */
import type { Redis } from 'ioredis';
import type { LedgerEntry, WalletLedger } from '../watches/wallet-ledger.ts';

const watchesKey = (payer: string) => `wallet:${payer}:watches`;
const member = ({ boughtAt, id }: LedgerEntry) => `${String(boughtAt).padStart(15, '0')}:${id}`;
const nonceKey = (nonce: string) => `sign-in-nonce:${nonce}`;
const UNBOUND = '1';
const BOUND_PREFIX = 'for:';

function entryOf(value: string): LedgerEntry {
  const at = value.indexOf(':');
  return { boughtAt: Number(value.slice(0, at)), id: value.slice(at + 1) };
}

export function redisWalletLedger(redis: Redis): WalletLedger {
  return {
    async add(payer, entry) {
      await redis.zadd(watchesKey(payer), 0, member(entry));
    },
    async list(payer, after, limit) {
      const max = after ? `(${member(after)}` : '+';
      const values = await redis.zrevrangebylex(watchesKey(payer), max, '-', 'LIMIT', 0, limit);
      return values.map(entryOf);
    },
    async acceptNonce(nonce, untilMs, boundTo = '') {
      const holder = boundTo === '' ? UNBOUND : `${BOUND_PREFIX}${boundTo}`;
      const expiry = Math.max(untilMs, Date.now() + 1);
      if ((await redis.set(nonceKey(nonce), holder, 'PXAT', expiry, 'NX')) === 'OK') return true;
      return boundTo !== '' && (await nonceHolder(nonce)) === boundTo;
    },
    nonceHolder,
  };

  async function nonceHolder(nonce: string): Promise<string | null> {
    const holder = await redis.get(nonceKey(nonce));
    if (holder === null) return null;
    return holder.startsWith(BOUND_PREFIX) ? holder.slice(BOUND_PREFIX.length) : '';
  }
}
