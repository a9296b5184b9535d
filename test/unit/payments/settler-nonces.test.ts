/**
 * The settler wallet's nonces in one process (a Node instance without Redis, the Worker's
 * `SettlerObject`): sends side by side, no nonce handed out twice, and a nonce whose transaction never
 * reaches the node filled with a transfer of 0 ETH at once, so no later settlement waits behind it
 * until that settlement gives up.
 */
import { describe, expect, it } from 'vitest';
import {
  COUNT_AHEAD_MS,
  countAhead,
  inProcessNonces,
  sendOnOwnNonce,
  type SignedTransaction,
} from '../../../src/payments/facilitator/settler-nonces.ts';

/**
 * A node's view of one account, as anvil keeps it: every transaction taken is held; those from the
 * account's count on without a gap are mined, the others wait in the pool behind the gap.
 */
function node(first: number) {
  const held = new Map<number, SignedTransaction>();
  const received: SignedTransaction[] = [];
  let sending = 0;
  let mostAtOnce = 0;
  const pending = () => {
    let nonce = first;
    while (held.has(nonce)) nonce += 1;
    return nonce;
  };
  return {
    received,
    pending: async () => pending(),
    mostAtOnce: () => mostAtOnce,
    /** Nonces whose transactions wait in the pool behind a gap. */
    waiting: () => [...held.keys()].filter((nonce) => nonce > pending()),
    async broadcast(raw: SignedTransaction) {
      sending += 1;
      mostAtOnce = Math.max(mostAtOnce, sending);
      await Promise.resolve();
      sending -= 1;
      const nonce = nonceOf(raw);
      if (nonce < pending()) throw new Error('nonce too low');
      if (held.has(nonce)) throw new Error('replacement transaction underpriced');
      held.set(nonce, raw);
      received.push(raw);
    },
  };
}
type Node = ReturnType<typeof node>;

const sign = async (nonce: number) => `0x${nonce.toString(16).padStart(8, '0')}` as const;
/** What fills a nonce given back: told apart from a settlement by its suffix. */
const filler = (nonce: number) => `0x${nonce.toString(16).padStart(8, '0')}f0` as const;
const nonceOf = (raw: string) => Number.parseInt(raw.slice(2, 10), 16);
const isFiller = (raw: string) => raw.endsWith('f0');
const dropped = async () => Promise.reject(new Error('the RPC dropped it'));

function noncesOn(chain: Pick<Node, 'pending' | 'broadcast'>) {
  return inProcessNonces({ pendingNonce: chain.pending, fill: (nonce) => chain.broadcast(filler(nonce)) });
}

describe('settler nonces in one process', () => {
  it('never hands out one twice, and sends side by side', async () => {
    const chain = node(5);
    const nonces = noncesOn(chain);
    const sent = await Promise.all(
      Array.from({ length: 30 }, () => nonces.send(sign, (raw) => chain.broadcast(raw))),
    );
    expect(sent.map(nonceOf).toSorted((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => 5 + i));
    expect(chain.received.some(isFiller)).toBe(false);
    expect(chain.mostAtOnce()).toBeGreaterThan(1);
    expect(await chain.pending()).toBe(35);
  });

  it('fills at once a nonce whose send failed: a burst after it is mined, nothing waits behind it', async () => {
    const chain = node(0);
    const nonces = noncesOn(chain);
    await expect(nonces.send(sign, dropped)).rejects.toThrow('the RPC dropped it');
    await Promise.all(Array.from({ length: 8 }, () => nonces.send(sign, (raw) => chain.broadcast(raw))));
    // Nonce 0 is filled by the burst's allocation; its own transaction is never sent by anyone else.
    expect(chain.received).toContain(filler(0));
    expect(chain.received).not.toContain(await sign(0));
    expect(chain.waiting()).toEqual([]);
    expect(await chain.pending()).toBe(9);
  });

  it('fills a failed send from a settlement being reconciled, when no allocation comes', async () => {
    const chain = node(0);
    const nonces = noncesOn(chain);
    // Nonce 1 reaches the node; nonce 0 does not: 1 waits behind the gap.
    const first = nonces.send(sign, dropped);
    await nonces.send(sign, (raw) => chain.broadcast(raw));
    await expect(first).rejects.toThrow();
    expect(chain.waiting()).toEqual([1]);
    await nonces.fillAbandoned();
    expect(chain.waiting()).toEqual([]);
    expect(await chain.pending()).toBe(2);
  });

  it('leaves a failed send the node took after all to its settlement: the fill is refused', async () => {
    const chain = node(0);
    const nonces = noncesOn(chain);
    // The node takes the transaction; its answer is lost.
    const lost = async (raw: SignedTransaction) => {
      await chain.broadcast(raw);
      throw new Error('timed out');
    };
    await expect(nonces.send(sign, lost)).rejects.toThrow('timed out');
    await nonces.send(sign, (raw) => chain.broadcast(raw));
    expect(chain.received).toEqual([await sign(0), await sign(1)]);
  });

  it('never hands out again a nonce in flight or held behind a gap when one is given up', async () => {
    const chain = node(0);
    const nonces = noncesOn(chain);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    // Nonce 0 is on its way to the node; nonce 1 reaches the node and waits behind it; nonce 2's
    // authorization expired unmined and its settlement gives it up.
    const slow = nonces.send(sign, async (raw) => {
      await held;
      await chain.broadcast(raw);
    });
    await nonces.send(sign, (raw) => chain.broadcast(raw));
    await nonces.send(sign, async () => {});
    await nonces.reissue(2);
    const later = await Promise.all(
      Array.from({ length: 3 }, () => nonces.send(sign, (raw) => chain.broadcast(raw))),
    );
    release();
    await slow;
    expect(later.map(nonceOf)).toEqual([3, 4, 5]);
    expect(chain.received.filter(isFiller)).toEqual([filler(2)]);
    expect(await chain.pending()).toBe(6);
  });

  it('gives a nonce back again when its fill fails, and fills it on the next look', async () => {
    const chain = node(0);
    let fills = 0;
    const nonces = inProcessNonces({
      pendingNonce: chain.pending,
      fill: async (nonce) => {
        fills += 1;
        if (fills === 1) throw new Error('the RPC is down');
        await chain.broadcast(filler(nonce));
      },
    });
    await expect(nonces.send(sign, dropped)).rejects.toThrow();
    await nonces.send(sign, (raw) => chain.broadcast(raw));
    expect(chain.waiting()).toEqual([1]);
    await nonces.fillAbandoned();
    expect(await chain.pending()).toBe(2);
    // A nonce the chain already counts is left alone.
    await nonces.reissue(0);
    expect(fills).toBe(2);
  });

  it('allocates nothing after a failed chain read, and follows the chain when it is ahead', async () => {
    let fail = true;
    const chain = node(3);
    const nonces = inProcessNonces({
      pendingNonce: async () => {
        if (fail) throw new Error('the RPC is down');
        return chain.pending();
      },
      fill: async () => {},
    });
    await expect(nonces.send(sign, (raw) => chain.broadcast(raw))).rejects.toThrow('the RPC is down');
    fail = false;
    await nonces.send(sign, (raw) => chain.broadcast(raw));
    expect(chain.received).toEqual([await sign(3)]);
    // Another program sent with the key.
    await chain.broadcast(await sign(4));
    await chain.broadcast(await sign(5));
    await nonces.send(sign, (raw) => chain.broadcast(raw));
    expect(chain.received.map(nonceOf)).toEqual([3, 4, 5, 6]);
  });
});

describe('the chain count read ahead of a send (readAhead)', () => {
  /** A chain whose count reads are counted. */
  function countedChain(first: number) {
    const chain = node(first);
    let reads = 0;
    const nonces = inProcessNonces({
      pendingNonce: async () => ((reads += 1), chain.pending()),
      fill: (nonce) => chain.broadcast(filler(nonce)),
    });
    return { chain, nonces, reads: () => reads };
  }

  it('serves the send that follows: the send waits for no read of its own', async () => {
    const { chain, nonces, reads } = countedChain(7);
    nonces.readAhead();
    expect(reads()).toBe(1);
    // The read has answered (a read still under way would be shared anyway).
    await new Promise((resolve) => setImmediate(resolve));
    await nonces.send(sign, (raw) => chain.broadcast(raw));
    expect(reads()).toBe(1);
    expect(chain.received).toEqual([await sign(7)]);
  });

  it('is read again when another program took the nonces it counted: the send signs at the fresh count', async () => {
    const { chain, nonces } = countedChain(3);
    nonces.readAhead();
    // Another program sends with the key after the count was read: nonces 3, 4 and 5.
    await new Promise((resolve) => setImmediate(resolve));
    for (const nonce of [3, 4, 5]) await chain.broadcast(await sign(nonce));
    // Without a fresh read the retries would try 4 and 5, both taken, and give up.
    const raw = await sendOnOwnNonce(nonces, sign, (signed) => chain.broadcast(signed));
    expect(nonceOf(raw)).toBe(6);
  });

  it('is read again at the send when the read ahead failed', async () => {
    const chain = node(2);
    let reads = 0;
    const nonces = inProcessNonces({
      pendingNonce: async () => {
        reads += 1;
        if (reads === 1) throw new Error('the RPC is down');
        return chain.pending();
      },
      fill: async () => {},
    });
    nonces.readAhead();
    await nonces.send(sign, (raw) => chain.broadcast(raw));
    expect(reads).toBe(2);
    expect(chain.received).toEqual([await sign(2)]);
  });

  it(`stands in for a send's own read for ${COUNT_AHEAD_MS} ms, no longer`, async () => {
    let at = 0;
    let reads = 0;
    const floor = countAhead(
      async () => (reads += 1),
      () => at,
    );
    expect(await floor.count()).toBe(1);
    floor.begin();
    at = COUNT_AHEAD_MS;
    expect(await floor.count()).toBe(2);
    expect(await floor.count()).toBe(2);
    at += 1;
    expect(await floor.count()).toBe(3);
    floor.begin();
    floor.forget();
    expect(await floor.count()).toBe(5);
  });
});
