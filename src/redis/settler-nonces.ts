/**
 * The account nonces of one settler wallet shared by every instance. A nonce is allocated in one
 * script, and its transaction signed and sent without holding anything fleet-wide, so settlements
 * of one wallet go out side by side from every instance:
 *
 *   nonce = max(the chain's pending nonce, the next nonce the store remembers)
 *
 * and the store remembers nonce + 1 in the same script. The chain's count is the floor: it covers
 * what any instance (or anything else holding the key) has sent, and a store restarted empty falls
 * back to it. The store's count covers what was allocated a moment ago and is not yet counted by the
 * node answering (a send in flight, a load-balanced RPC).
 *
 * Each allocated nonce has a key of its own: a short lease (`NONCE_LEASE_MS`) its live settlement
 * renews until the node has taken the transaction, then a longer one (`SENT_MS`, the longest a
 * settlement lasts) while its settlement may still re-send it. A nonce between the chain's pending count and the
 * store's next one whose key is gone was allocated to a settlement that died before its send
 * (`kill -9`, a paused process), whose send failed, or that gave up on its transaction: that transaction
 * is never sent by anyone else (its paid call has no one left to deliver the result, so sending it
 * would charge the payer for nothing). The gap is filled with a transfer of 0 ETH from the settler
 * to itself at that nonce: it charges no payer and makes the abandoned transaction unusable. Gaps
 * are filled by the next allocation, and by a settlement whose transaction waits behind one
 * (`fillAbandoned`, while it waits for its receipt and on each re-send while it is reconciled).
 *
 * An allocation whose answer never came (the server paused or stalled past the command timeout,
 * then ran the script) left a nonce nobody will send: its allocator releases it as soon as the
 * server answers again, rather than letting every later transaction of the wallet wait out its lease.
 * The highest nonce this instance allocated is a floor as well, so a store restarted empty does not
 * hand out again a nonce whose transaction this instance still has on its way to the node; one that
 * another instance still has on its way is refused by the node and its settlement signs again with
 * a fresh nonce (`sendOnOwnNonce`).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { keepRenewed } from '../payments/server/lock-lease.ts';
import { SETTLEMENT_MAX_MS } from '../payments/facilitator/settlement.ts';
import {
  nonceTaken,
  countAhead,
  type SettlerNoncesFor,
  type SignedTransaction,
  singleFlight,
} from '../payments/facilitator/settler-nonces.ts';
import { luaScript, releaseIfHeld, renewIfHeld, type SharedStore } from './connection.ts';

/**
 * The lease of a nonce until its transaction is sent: short, so the nonce of a settlement whose
 * process died (`kill -9`) is filled about 2 s later and later transactions of the wallet do not
 * wait behind it longer; renewed four times a lease, so a store slower than that keeps it.
 */
export const NONCE_LEASE_MS = 2_000;
const NONCE_RENEW_MS = 500;
/** A remembered next nonce older than this is left to the chain's count again. */
const NEXT_NONCE_TTL_MS = 10 * 60_000;
/** A sent transaction is left to its settlement (which may re-send it) this long, then counts as abandoned. */
const SENT_MS = SETTLEMENT_MAX_MS;
/** Nonces looked at past the chain's count for abandoned ones, and most filled at once. */
const GAP_SCAN = 64;
const MAX_FILLED = 16;
/** How often the release of an allocation whose answer was lost is tried again while the server does not answer. */
const RELEASE_RETRY_MS = 100;

/**
 * Lua: claims for ARGV[2] (lease ARGV[3] ms) the nonces from `pending` below `next` whose key
 * (KEYS[2] .. nonce) is gone, and returns them.
 */
const CLAIM_ABANDONED = `local function abandoned(pending, next)
  local claimed = {}
  for n = pending, math.min(next, pending + ${GAP_SCAN}) - 1 do
    if #claimed >= ${MAX_FILLED} then break end
    if redis.call('SET', KEYS[2] .. n, ARGV[2], 'PX', ARGV[3], 'NX') then table.insert(claimed, n) end
  end
  return claimed
end
`;

/**
 * KEYS: next, nonce key prefix; ARGV: the chain's pending nonce, token, lease, next TTL, this
 * instance's own floor. Allocates `{ nonce, abandoned... }`: the nonce leased to the token, the store
 * remembering the one after it.
 */
const allocate = luaScript(`${CLAIM_ABANDONED}
local pending = tonumber(ARGV[1])
local next = tonumber(redis.call('GET', KEYS[1]) or '0')
local nonce = math.max(next, pending, tonumber(ARGV[5]))
redis.call('SET', KEYS[1], nonce + 1, 'PX', ARGV[4])
redis.call('SET', KEYS[2] .. nonce, ARGV[2], 'PX', ARGV[3])
local result = abandoned(pending, next)
table.insert(result, 1, nonce)
return result`);

/** KEYS: next, nonce key prefix; ARGV: the chain's pending nonce, token, lease. The abandoned nonces, claimed. */
const claimAbandoned = luaScript(`${CLAIM_ABANDONED}
return abandoned(tonumber(ARGV[1]), tonumber(redis.call('GET', KEYS[1]) or '0'))`);

/** KEYS: next, nonce key prefix; ARGV: token. Deletes the nonce keys below next still holding the token. */
const releaseAllocation = luaScript(`local next = tonumber(redis.call('GET', KEYS[1]) or '0')
local released = 0
for n = math.max(0, next - ${GAP_SCAN}), next - 1 do
  if redis.call('GET', KEYS[2] .. n) == ARGV[1] then released = released + redis.call('DEL', KEYS[2] .. n) end
end
return released`);

export function redisSettlerNonces(store: SharedStore, logger: Logger): SettlerNoncesFor {
  const { redis } = store;
  return (wallet, chain) => {
    const base = `wallet:${wallet.chainId}:${wallet.address.toLowerCase()}`;
    // Settlements starting together share one read of the chain's count: it is only a floor, the
    // store's next nonce covering what was allocated since.
    const pendingNonce = singleFlight(chain.pendingNonce);
    const nonces: WalletNonces = {
      redis,
      logger,
      fill: chain.fill,
      pendingNonce,
      floor: countAhead(pendingNonce),
      nextKey: `${base}:next`,
      noncePrefix: `${base}:nonce:`,
      ownNext: 0,
    };
    return {
      send: (sign, broadcast) => send(nonces, sign, broadcast),
      fillAbandoned: singleFlight(async () => {
        const token = randomUUID();
        const pending = await nonces.pendingNonce();
        const claimed = await leasing(nonces, token, () =>
          claimAbandoned(redis, [nonces.nextKey, nonces.noncePrefix], pending, token, NONCE_LEASE_MS),
        );
        await fillAll(nonces, claimed, token);
      }),
      readAhead: () => nonces.floor.begin(),
      async reissue(nonce) {
        // Mined or replaced meanwhile: nothing left to fill.
        if (nonce < (await nonces.pendingNonce())) return;
        const token = randomUUID();
        await redis.set(nonceKey(nonces, nonce), token, 'PX', NONCE_LEASE_MS);
        await fillAll(nonces, [nonce], token);
      },
    };
  };
}

/** One wallet's nonces in the store, and what filling a gap asks of the chain. */
interface WalletNonces {
  redis: SharedStore['redis'];
  logger: Logger;
  fill: (nonce: number) => Promise<unknown>;
  pendingNonce: () => Promise<number>;
  /** The chain's count as a send takes it: read ahead (`readAhead`) or at once. */
  floor: ReturnType<typeof countAhead>;
  nextKey: string;
  noncePrefix: string;
  /** One past the highest nonce allocated here. */
  ownNext: number;
}

const nonceKey = ({ noncePrefix }: WalletNonces, nonce: number) => `${noncePrefix}${nonce}`;
const sent = (nonces: WalletNonces, nonce: number, token: string) =>
  renewIfHeld(nonces.redis, [nonceKey(nonces, nonce)], token, SENT_MS);

/** Signs and broadcasts with the next nonce, leased while it is under way (`SettlerNonces.send`). */
async function send(
  nonces: WalletNonces,
  sign: (nonce: number) => Promise<SignedTransaction>,
  broadcast: (raw: SignedTransaction) => Promise<unknown>,
): Promise<SignedTransaction> {
  const { redis, logger, nextKey, noncePrefix } = nonces;
  const pending = await nonces.floor.count();
  const token = randomUUID();
  const [nonce, ...abandoned] = await leasing(nonces, token, () =>
    allocate(
      redis,
      [nextKey, noncePrefix],
      pending,
      token,
      NONCE_LEASE_MS,
      NEXT_NONCE_TTL_MS,
      nonces.ownNext,
    ),
  );
  nonces.ownNext = Math.max(nonces.ownNext, nonce! + 1);
  const stop = keepRenewed(
    () => renewIfHeld(redis, [nonceKey(nonces, nonce!)], token, NONCE_LEASE_MS),
    (error) => logger.warn({ err: error }, 'could not renew a settler nonce lease'),
    NONCE_RENEW_MS,
  );
  const filled = fillAll(nonces, abandoned, token);
  try {
    const raw = await sign(nonce!);
    const handed = await broadcast(raw).then(
      () => true,
      (error: unknown) => error,
    );
    stop();
    // Sent: left to its settlement, which re-sends it while reconciling and gives it back if it
    // gives up (`reissue`); held by another transaction: not ours to fill. Not sent, or the
    // node's answer lost: given back at once, so no later settlement waits behind it; if the
    // node has it after all, the chain counts it and nobody fills it. A lease the store did not
    // get to change ends on its own.
    await (
      handed === true || nonceTaken(handed)
        ? sent(nonces, nonce!, token)
        : releaseIfHeld(redis, [nonceKey(nonces, nonce!)], token)
    ).catch((error: unknown) => logger.warn({ err: error }, 'could not record a settler nonce sent'));
    // Taken: the count read ahead is behind whatever took it; the next send reads afresh.
    if (nonceTaken(handed)) nonces.floor.forget();
    if (handed !== true) throw handed;
    return raw;
  } finally {
    stop();
    await filled;
  }
}

/** Fills each claimed nonce; one not filled is released, for the next look to try again. */
async function fillAll(nonces: WalletNonces, claimed: readonly number[], token: string): Promise<void> {
  await Promise.all(
    claimed.map(async (nonce) => {
      try {
        await nonces.fill(nonce);
        await sent(nonces, nonce, token);
      } catch (error) {
        nonces.logger.warn({ err: error, nonce }, 'could not fill a settler nonce gap');
        await releaseIfHeld(nonces.redis, [nonceKey(nonces, nonce)], token).catch(() => {});
      }
    }),
  );
}

/**
 * The script that leased nonces to `token` got no answer, though the server may run it once it
 * answers again: whatever it leased is released then, until the lease would have ended anyway.
 */
async function releaseLost({ redis, nextKey, noncePrefix }: WalletNonces, token: string): Promise<void> {
  const until = Date.now() + NONCE_LEASE_MS;
  while (Date.now() < until) {
    try {
      await releaseAllocation(redis, [nextKey, noncePrefix], token);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, RELEASE_RETRY_MS));
    }
  }
}

/** Runs a script that leases nonces to `token`; should its answer be lost, they are released again. */
async function leasing(
  nonces: WalletNonces,
  token: string,
  script: () => Promise<unknown>,
): Promise<number[]> {
  try {
    return (await script()) as number[];
  } catch (error) {
    void releaseLost(nonces, token);
    throw error;
  }
}
