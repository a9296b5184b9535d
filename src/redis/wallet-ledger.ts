/**
 * The `WalletLedger` every Node instance with `REDIS_URL` shares:
 *
 *   wallet:{payer}:watches   zset   "{boughtAt, 15 digits}:{id}", all scored 0 (lexical order is time order)
 *   sign-in-nonce:{nonce}    string accepted once (SET NX), expiring with the nonce itself
 */
import type { Redis } from 'ioredis';
import type { LedgerEntry, WalletLedger } from '../watches/wallet-ledger.ts';

const watchesKey = (payer: string) => `wallet:${payer}:watches`;
const member = ({ boughtAt, id }: LedgerEntry) => `${String(boughtAt).padStart(15, '0')}:${id}`;

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
    async acceptNonce(nonce, untilMs, boundTo) {
      const key = `sign-in-nonce:${nonce}`;
      const holder = boundTo === undefined ? '1' : `for:${boundTo}`;
      if ((await redis.set(key, holder, 'PXAT', Math.max(untilMs, Date.now() + 1), 'NX')) === 'OK')
        return true;
      return boundTo !== undefined && (await redis.get(key)) === holder;
    },
    async nonceHolder(nonce) {
      const holder = await redis.get(`sign-in-nonce:${nonce}`);
      if (holder === null) return null;
      return holder.startsWith('for:') ? holder.slice('for:'.length) : '';
    },
  };
}
