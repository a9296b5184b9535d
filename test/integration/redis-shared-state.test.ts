/**
 * The shared payment state of `REDIS_URL` against a real redis-server on loopback, seen from two
 * connections as two instances see it: one signature locked once fleet-wide, a lost result found
 * from any instance until handed over, one settler wallet's nonces never handed out twice, and an outage that
 * fails fast and heals by itself.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_MS } from '../../src/payments/lock-lease.ts';
import type { SettlerNonces } from '../../src/payments/settler-nonces.ts';
import { REDELIVERY_WINDOW_MS } from '../../src/payments/undelivered.ts';
import { redisAuthorizations } from '../../src/redis/authorizations.ts';
import {
  connectSharedStore,
  evictionRefusal,
  KEY_PREFIX,
  type SharedStore,
} from '../../src/redis/connection.ts';
import { redisRateBuckets } from '../../src/redis/rate-buckets.ts';
import { redisSharedAnswers } from '../../src/redis/shared-answers.ts';
import { CT_CACHE_TTL_MS, createCtCache } from '../../src/sources/ct/lookup.ts';
import type { CtLookupOutcome } from '../../src/sources/ct/outcome.ts';
import { redisSettlerNonces } from '../../src/redis/settler-nonces.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';

const logger = pino({ level: 'silent' });
const RECEIPT = { success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:8453' as const };
const SIGNATURE = `0x${'5a'.repeat(65)}`;

let server: RedisServer;
let stores: SharedStore[];

async function ready(store: SharedStore): Promise<void> {
  while (!store.reachable()) await sleep(10);
}

beforeAll(async () => {
  server = await startRedisServer();
  stores = [connectSharedStore(server.url, logger), connectSharedStore(server.url, logger)];
  await Promise.all(stores.map(ready));
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await server?.close();
});

const instances = () => stores.map((store) => redisAuthorizations(store, logger));
let keys = 0;
const freshKey = () => `0x${'1'.repeat(40)}:0x${(++keys).toString(16).padStart(64, '0')}`;

describe('the one-signature lock across instances', () => {
  it('admits one of many concurrent copies, whichever instance they reach, until it is released', async () => {
    const [a, b] = instances();
    const key = freshKey();
    const attempts = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b)!.lock.acquire(key)),
    );
    const held = attempts.filter((release) => release !== null);
    expect(held).toHaveLength(1);
    expect(await b!.lock.acquire(key)).toBeNull();
    await held[0]!();
    const again = await b!.lock.acquire(key);
    expect(again).not.toBeNull();
    await again!();
  });

  it('is a prefixed key whose lease ends on its own after LEASE_MS, released only by its holder', async () => {
    const [a, b] = instances();
    const key = freshKey();
    const release = await a!.lock.acquire(key);
    const stored = `${KEY_PREFIX}lock:${key}`;
    const ttl = await server.client.pttl(stored);
    expect(ttl).toBeGreaterThan(LEASE_MS - 5_000);
    expect(ttl).toBeLessThanOrEqual(LEASE_MS);
    // The lease expired and another instance took it: the first holder's late release leaves it alone.
    await server.client.set(stored, 'another-holders-token', 'PX', LEASE_MS);
    await release!();
    expect(await server.client.get(stored)).toBe('another-holders-token');
    expect(await b!.lock.acquire(key)).toBeNull();
    await server.client.del(stored);
  });

  it('is renewed by its live holder past LEASE_MS, and ends within LEASE_MS once its holder is gone', async () => {
    // Time is the feature here: the lease is a duration.
    const holder = connectSharedStore(server.url, logger);
    await ready(holder);
    const [other] = instances();
    const live = freshKey();
    const dead = freshKey();
    const [keep, abandoned] = await Promise.all(
      [live, dead].map((key) => redisAuthorizations(holder, logger).lock.acquire(key)),
    );
    expect(abandoned).not.toBeNull();
    // `dead` as a killed holder leaves it: a lease under a token no live process renews.
    await server.client.set(`${KEY_PREFIX}lock:${dead}`, 'a-killed-holders-token', 'PX', LEASE_MS);
    await sleep(LEASE_MS + 1_000);
    expect(await other!.lock.acquire(live)).toBeNull();
    const taken = await other!.lock.acquire(dead);
    expect(taken).not.toBeNull();
    await Promise.all([keep!(), taken!(), abandoned!()]);
    await holder.close();
  }, 30_000);

  it('treats hostile keys as plain data (no pattern, no script injection)', async () => {
    const [a] = instances();
    await server.client.set('canary', 'still here');
    for (const key of ['*', "') redis.call('FLUSHALL') --", 'x'.repeat(10_000), '\u0000\r\n']) {
      const release = await a!.lock.acquire(key);
      expect(release).not.toBeNull();
      await release!();
    }
    expect(await server.client.get('canary')).toBe('still here');
  });
});

describe('lost results across instances', () => {
  it('are found on any instance, only with the signature that settled them, until one hands the result over', async () => {
    const [a, b] = instances();
    const key = freshKey();
    await a!.undelivered.remember(key, SIGNATURE, RECEIPT);
    expect(await b!.undelivered.claim(key, `0x${'00'.repeat(65)}`)).toBeNull();
    // Claims are reads (copies are kept apart by the one-signature lock): each finds the receipt.
    const claims = await Promise.all(
      Array.from({ length: 4 }, (_, i) => (i % 2 ? a : b)!.undelivered.claim(key, SIGNATURE)),
    );
    expect(claims).toEqual([RECEIPT, RECEIPT, RECEIPT, RECEIPT]);
    await b!.undelivered.settled(key);
    expect(await a!.undelivered.claim(key, SIGNATURE)).toBeNull();
  });

  it('keep a digest of the signature, not the signature, for the redelivery window', async () => {
    const [a] = instances();
    const key = freshKey();
    await a!.undelivered.remember(key, SIGNATURE, RECEIPT);
    const stored = `${KEY_PREFIX}lost:${key}`;
    const fields = await server.client.hgetall(stored);
    expect(JSON.stringify(fields)).not.toContain(SIGNATURE.slice(2));
    expect(fields.signature).toMatch(/^[0-9a-f]{64}$/);
    const ttl = await server.client.pttl(stored);
    expect(ttl).toBeGreaterThan(REDELIVERY_WINDOW_MS - 5_000);
    expect(ttl).toBeLessThanOrEqual(REDELIVERY_WINDOW_MS);
  });
});

describe("one settler wallet's nonces across instances", () => {
  /** A node's view of one account: the nonces it holds, pending counted up to the first missing one. */
  function node(first: number) {
    const held = new Set<number>();
    let sending = 0;
    let mostAtOnce = 0;
    const received: number[] = [];
    return {
      held,
      received,
      mostAtOnce: () => mostAtOnce,
      pending: async () => {
        let nonce = first;
        while (held.has(nonce)) nonce += 1;
        return nonce;
      },
      async broadcast(raw: `0x${string}`) {
        sending += 1;
        mostAtOnce = Math.max(mostAtOnce, sending);
        await sleep(2);
        sending -= 1;
        const nonce = nonceOf(raw);
        received.push(nonce);
        held.add(nonce);
      },
    };
  }
  const sign = async (nonce: number) => `0x${nonce.toString(16).padStart(8, '0')}` as const;
  /** What fills an abandoned nonce: told apart from a settlement by its suffix. */
  const filler = async (nonce: number) => `${await sign(nonce)}f0` as const;
  const nonceOf = (raw: string) => Number.parseInt(raw.slice(2, 10), 16);
  const isFiller = (raw: string) => raw.endsWith('f0');
  let wallets = 0;
  const freshWallet = () => ({
    address: `0x${(++wallets).toString(16).padStart(40, 'c')}` as `0x${string}`,
    chainId: 8453,
  });
  const noncesOn = (
    store: SharedStore,
    wallet: ReturnType<typeof freshWallet>,
    pendingNonce: () => Promise<number>,
  ) => redisSettlerNonces(store, logger)(wallet, { client: undefined as never, pendingNonce, filler });

  /** Two instances on a fresh wallet whose node answers `pending` (settable), recording what they send. */
  function laggingNode(pending: number) {
    const wallet = freshWallet();
    const used: number[] = [];
    const fillers: number[] = [];
    const view = { pending };
    const [a, b] = stores.map((store) => noncesOn(store, wallet, async () => view.pending)) as [
      SettlerNonces,
      SettlerNonces,
    ];
    const record = async (raw: `0x${string}`) => {
      used.push(nonceOf(raw));
      if (isFiller(raw)) fillers.push(nonceOf(raw));
    };
    return Object.assign(view, { a, b, used, fillers, record });
  }

  it('never hands out one twice and sends one at a time, whichever instance sends', async () => {
    const wallet = freshWallet();
    const chain = node(5);
    const [a, b] = stores.map((store) => noncesOn(store, wallet, chain.pending));
    const sent = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b)!.send(sign, (raw) => chain.broadcast(raw))),
    );
    expect(new Set(sent).size).toBe(30);
    expect(chain.received.toSorted((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => 5 + i));
    expect(chain.mostAtOnce()).toBe(1);
    const keys = `${KEY_PREFIX}wallet:8453:${wallet.address}`;
    expect(await server.client.exists(`${keys}:lease`)).toBe(0);
    expect(await server.client.pttl(`${keys}:next`)).toBeGreaterThan(0);
  });

  it('covers sends the node does not count yet, and follows the chain when it is ahead', async () => {
    const lagging = laggingNode(7);
    const { a, b, used, fillers, record } = lagging;
    await a.send(sign, record);
    await b.send(sign, record);
    // The lagging node still says 7: the store's count wins, and the nonce it misses is filled with a
    // transfer that charges nobody, never with a's transaction.
    expect(used).toEqual([7, 7, 8]);
    expect(fillers).toEqual([7]);
    lagging.pending = 50; // another program sent with the key, or the store forgot
    used.length = 0;
    await a.send(sign, record);
    expect(used).toEqual([50]);
  });

  it("fills the nonce of another instance's send that never reached the node, never sending it", async () => {
    const wallet = freshWallet();
    const chain = node(0);
    const [a, b] = stores.map((store) => noncesOn(store, wallet, chain.pending));
    const seen: string[] = [];
    const broadcast = (raw: `0x${string}`) => (seen.push(raw), chain.broadcast(raw));
    await a!.send(sign, broadcast);
    const dropped = await sign(1);
    await expect(
      a!.send(sign, async () => Promise.reject(new Error('the RPC dropped it'))),
    ).rejects.toThrow();
    expect(await chain.pending()).toBe(1);
    await b!.send(sign, broadcast);
    expect([...chain.held].toSorted()).toEqual([0, 1, 2]);
    expect(seen).toEqual([await sign(0), await filler(1), await sign(2)]);
    expect(seen).not.toContain(dropped);
  });

  it('reissues from the chain once a transaction is known never to be used', async () => {
    // Nonce 3 is sent, never mined, and its authorization expires: the node still says 3.
    const { a, b, used, record } = laggingNode(3);
    await a.send(sign, record);
    await b.reissue();
    used.length = 0;
    await a.send(sign, record);
    expect(used).toEqual([3]);
  });

  it('counts a nonce as used once signed, but not after a failed chain read', async () => {
    const wallet = freshWallet();
    let fail = true;
    const nonces = noncesOn(stores[0]!, wallet, async () => {
      if (fail) throw new Error('the RPC is down');
      return 3;
    });
    await expect(nonces.send(sign, async () => {})).rejects.toThrow('the RPC is down');
    fail = false;
    await expect(nonces.send(sign, async () => Promise.reject(new Error('send failed')))).rejects.toThrow();
    const used: number[] = [];
    await nonces.send(sign, async (raw) => void used.push(nonceOf(raw)));
    // Nonce 3 was signed and never reached the node: it is filled, then 4 is the settlement's.
    expect(used).toEqual([3, 4]);
  });
  it('never hands out a nonce twice after Redis restarts empty: the chain is the floor', async () => {
    const wallet = freshWallet();
    const chain = node(40);
    const [a, b] = stores.map((store) => noncesOn(store, wallet, chain.pending));
    for (let i = 0; i < 3; i += 1) await a!.send(sign, (raw) => chain.broadcast(raw));
    await server.stop();
    while (stores.some((store) => store.reachable())) await sleep(10);
    await server.start();
    await server.client.connect().catch(() => {});
    await Promise.all(stores.map(ready));
    expect(await server.client.dbsize()).toBe(0);
    await b!.send(sign, (raw) => chain.broadcast(raw));
    expect(chain.received).toEqual([40, 41, 42, 43]);
  }, 20_000);
});

describe('free-work buckets across instances', () => {
  const PER_MS = 60 / 60_000;

  it('give a client one budget however its requests are spread, refilled on one clock', async () => {
    const [a, b] = stores.map((store) => redisRateBuckets(store));
    const client = `198.51.100.${++keys}`;
    // A skewed instance clock changes nothing: the server's clock refills.
    const takes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b)!.take(client, 4, PER_MS, i % 2 ? 0 : 9e15)),
    );
    expect(takes.filter((take) => take.allowed)).toHaveLength(4);
    const refused = takes.filter((take) => !take.allowed);
    expect(refused.every((take) => take.tokens >= 0 && take.tokens < 1)).toBe(true);
    // Another client has its own bucket.
    expect((await a!.take(`${client}0`, 4, PER_MS, 0)).allowed).toBe(true);
    await sleep(1_100); // one token a second
    expect((await b!.take(client, 4, PER_MS, 0)).allowed).toBe(true);
    expect((await a!.take(client, 4, PER_MS, 0)).allowed).toBe(false);
  });

  it('forget a bucket once it would be full again', async () => {
    const [a] = stores.map((store) => redisRateBuckets(store));
    const client = `2001:db8:${++keys}::/64`;
    await a!.take(client, 60, 1 / 1_000, 0);
    const ttl = await server.client.pttl(`${KEY_PREFIX}bucket:${client}`);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(61_000);
  });
});

describe('CT answers across instances', () => {
  const answer = (domain: string): CtLookupOutcome => ({
    result: {
      ok: true,
      value: {
        source: 'crt.sh',
        issuances: [
          {
            issuer: "Let's Encrypt",
            issuerDn: "C=US, O=Let's Encrypt, CN=R11",
            serial: '0a1b',
            notBefore: new Date('2026-10-01T00:00:00Z'),
            notAfter: new Date('2026-12-30T00:00:00Z'),
            names: [domain],
            loggedAt: null,
            crtshId: '17425498611',
            der: null,
          },
          {
            issuer: "Let's Encrypt",
            issuerDn: "C=US, O=Let's Encrypt, CN=R11",
            serial: '0a1a',
            notBefore: new Date('2026-08-01T00:00:00Z'),
            notAfter: new Date('2026-10-30T00:00:00Z'),
            names: [domain],
            loggedAt: new Date('2026-08-01T00:05:00Z'),
            crtshId: null,
            der: new Uint8Array([0x30, 0x82, 0x00, 0x01, 0xff]),
          },
        ],
      },
    },
    calls: [{ name: 'crt.sh', url: `https://crt.sh/?q=${domain}`, ok: true, ms: 840, cached: false }],
  });

  it("reuse another instance's answer, dates and certificate bytes, without asking the upstream again", async () => {
    const [a, b] = stores.map((store) => createCtCache(undefined, redisSharedAnswers(store)));
    const domain = `shared-${++keys}.example`;
    let upstream = 0;
    const load = async () => ({ ok: true as const, value: (upstream++, answer(domain)) });
    expect((await a!.get(domain, load)).cached).toBe(false);
    const elsewhere = await b!.get(domain, load);
    expect(upstream).toBe(1);
    expect(elsewhere.cached).toBe(true);
    expect(elsewhere.result).toEqual({ ok: true, value: answer(domain) });
    const ttl = await server.client.pttl(`${KEY_PREFIX}answer:ct:${domain}`);
    expect(ttl).toBeGreaterThan(CT_CACHE_TTL_MS - 5_000);
    expect(ttl).toBeLessThanOrEqual(CT_CACHE_TTL_MS);
  });

  it('keep a failed lookup out of the shared tier', async () => {
    const [a] = stores.map((store) => createCtCache(undefined, redisSharedAnswers(store)));
    const domain = `failing-${++keys}.example`;
    const failed: CtLookupOutcome = {
      result: {
        ok: false,
        failure: { kind: 'upstream', upstreams: [] },
      } as unknown as CtLookupOutcome['result'],
      calls: [],
    };
    await a!.get(domain, async () => ({ ok: true, value: failed }));
    expect(await server.client.exists(`${KEY_PREFIX}answer:ct:${domain}`)).toBe(0);
  });
});

describe('an unreachable store', () => {
  it('fails commands at once (no queue, no resend), reports it, and heals when Redis returns', async () => {
    const [a] = instances();
    await server.stop();
    const started = performance.now();
    await expect(a!.lock.acquire(freshKey())).rejects.toThrow();
    await expect(a!.undelivered.claim(freshKey(), SIGNATURE)).rejects.toThrow();
    // An upstream answer is then asked of the upstream, as without a shared store.
    const ct = createCtCache(undefined, redisSharedAnswers(stores[0]!));
    const looked = await ct.get('outage.example', async () => ({
      ok: true,
      value: { result: { ok: false }, calls: [] } as never,
    }));
    expect(looked.cached).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_500);
    while (stores[0]!.reachable()) await sleep(10);

    await server.start();
    await server.client.connect().catch(() => {});
    const back = performance.now();
    await Promise.all(stores.map(ready));
    expect(performance.now() - back).toBeLessThan(5_000);
    const release = await a!.lock.acquire(freshKey());
    expect(release).not.toBeNull();
    await release!();
  }, 20_000);
});

describe('a store whose eviction policy could drop payment state', () => {
  it('is refused at start with one line and never counted reachable, until the policy is noeviction', async () => {
    await server.client.config('SET', 'maxmemory-policy', 'volatile-lru');
    const store = connectSharedStore(server.url, logger);
    try {
      expect(await store.refusal()).toBe(evictionRefusal('volatile-lru'));
      expect(evictionRefusal('volatile-lru')).not.toContain('\n');
      expect(store.reachable()).toBe(false);
      for (const policy of ['allkeys-lru', 'volatile-ttl', 'allkeys-random']) {
        await server.client.config('SET', 'maxmemory-policy', policy);
        expect(await store.refusal()).toContain(policy);
      }
      await server.client.config('SET', 'maxmemory-policy', 'noeviction');
      expect(await store.refusal()).toBeNull();
      // A reconnection reads the policy again.
      store.redis.disconnect(true);
      await ready(store);
    } finally {
      await server.client.config('SET', 'maxmemory-policy', 'noeviction');
      await store.close();
    }
  });
});
