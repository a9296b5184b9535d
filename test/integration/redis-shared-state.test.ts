/**
 * The shared payment state of `REDIS_URL` against a real redis-server on loopback, seen from two
 * connections as two instances see it: one signature locked once fleet-wide, a lost result found
 * from any instance until handed over, one settler wallet's nonces never handed out twice, and an outage that
 * fails fast and heals by itself.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_MS } from '../../src/payments/server/lock-lease.ts';
import { type SettlerNonces, sendOnOwnNonce } from '../../src/payments/facilitator/settler-nonces.ts';
import { REDELIVERY_WINDOW_MS } from '../../src/payments/server/undelivered.ts';
import { redisAuthorizations } from '../../src/redis/authorizations.ts';
import {
  COMMAND_TIMEOUT_MS,
  connectSharedStore,
  evictionRefusal,
  KEY_PREFIX,
  type SharedStore,
  STALL_MS,
} from '../../src/redis/connection.ts';
import type { StoreCondition } from '../../src/payments/server/readiness.ts';
import { redisRateBuckets } from '../../src/redis/rate-buckets.ts';
import { redisSharedAnswers } from '../../src/redis/shared-answers.ts';
import { CT_CACHE_TTL_MS, createCtCache } from '../../src/sources/ct/lookup.ts';
import type { CtLookupOutcome } from '../../src/sources/ct/outcome.ts';
import { NONCE_LEASE_MS, redisSettlerNonces } from '../../src/redis/settler-nonces.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import { waitFor } from '../support/wait-for.ts';

const logger = pino({ level: 'silent' });
const RECEIPT = { success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:8453' as const };
const SIGNATURE = `0x${'5a'.repeat(65)}`;

let server: RedisServer;
let stores: SharedStore[];

async function ready(store: SharedStore): Promise<void> {
  await waitFor(() => store.reachable(), { what: 'the connection to redis-server' });
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

  it('keep a result handed over apart from a lost one, on every instance', async () => {
    const [a, b] = instances();
    const key = freshKey();
    await a!.undelivered.remember(key, SIGNATURE, RECEIPT, true);
    expect(await b!.undelivered.claim(key, SIGNATURE)).toEqual({ delivered: RECEIPT });
    expect(await b!.undelivered.claim(key, `0x${'00'.repeat(65)}`)).toBeNull();
    // A later copy whose answer is lost turns it back into a lost result.
    await b!.undelivered.remember(key, SIGNATURE, RECEIPT);
    expect(await a!.undelivered.claim(key, SIGNATURE)).toEqual(RECEIPT);
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
    const received: `0x${string}`[] = [];
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
        received.push(raw);
        held.add(nonceOf(raw));
      },
    };
  }
  type Node = ReturnType<typeof node>;
  const sign = async (nonce: number) => `0x${nonce.toString(16).padStart(8, '0')}` as const;
  /** What fills an abandoned nonce: told apart from a settlement by its suffix. */
  const filler = (nonce: number) => `0x${nonce.toString(16).padStart(8, '0')}f0` as const;
  const nonceOf = (raw: string) => Number.parseInt(raw.slice(2, 10), 16);
  const isFiller = (raw: string) => raw.endsWith('f0');
  const sorted = (nonces: number[]) => nonces.toSorted((x, y) => x - y);
  /** A settlement that never gets past signing: its process died after the nonce was allocated. */
  const dies = () => new Promise<`0x${string}`>(() => {});
  let wallets = 0;
  const freshWallet = () => ({
    address: `0x${(++wallets).toString(16).padStart(40, 'c')}` as `0x${string}`,
    chainId: 8453,
  });
  const nonceKey = (wallet: ReturnType<typeof freshWallet>, nonce: number) =>
    `${KEY_PREFIX}wallet:8453:${wallet.address}:nonce:${nonce}`;

  /** Two instances settling with one fresh wallet on `chain`, filling gaps through it. */
  function instancesOn(chain: Pick<Node, 'pending' | 'broadcast'>) {
    const wallet = freshWallet();
    const [a, b] = stores.map((store) =>
      redisSettlerNonces(store, logger)(wallet, {
        pendingNonce: chain.pending,
        fill: (nonce) => chain.broadcast(filler(nonce)),
      }),
    ) as [SettlerNonces, SettlerNonces];
    return { wallet, a, b };
  }

  it('never hands out one twice, and sends side by side whichever instance sends', async () => {
    const chain = node(5);
    const { wallet, a, b } = instancesOn(chain);
    const sent = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).send(sign, (raw) => chain.broadcast(raw))),
    );
    expect(new Set(sent).size).toBe(30);
    expect(sorted(chain.received.map(nonceOf))).toEqual(Array.from({ length: 30 }, (_, i) => 5 + i));
    expect(chain.received.some(isFiller)).toBe(false);
    // No fleet-wide lease is held across a send: sends of one wallet overlap.
    expect(chain.mostAtOnce()).toBeGreaterThan(1);
    // A sent nonce is left to its settlement for longer than a live one's lease.
    expect(await server.client.pttl(nonceKey(wallet, 5))).toBeGreaterThan(LEASE_MS);
    const base = `${KEY_PREFIX}wallet:8453:${wallet.address}`;
    expect(await server.client.exists(`${base}:lease`)).toBe(0);
    expect(await server.client.pttl(`${base}:next`)).toBeGreaterThan(0);
  });

  it('covers sends the node does not count yet, and follows the chain when it is ahead', async () => {
    const view = { pending: 7 };
    const received: `0x${string}`[] = [];
    const { a, b } = instancesOn({
      pending: async () => view.pending,
      broadcast: async (raw) => void received.push(raw),
    });
    const record = async (raw: `0x${string}`) => void received.push(raw);
    await a.send(sign, record);
    await b.send(sign, record);
    // The lagging node still says 7: the store's count wins, and a's nonce, sent, is left alone.
    expect(received.map(nonceOf)).toEqual([7, 8]);
    expect(received.some(isFiller)).toBe(false);
    view.pending = 50; // another program sent with the key, or the store forgot
    received.length = 0;
    await a.send(sign, record);
    expect(received.map(nonceOf)).toEqual([50]);
  });

  it('takes the count read ahead of a send, and reads afresh once another program took the nonces it counted', async () => {
    const chain = node(4);
    let reads = 0;
    const nonces = redisSettlerNonces(stores[0] as SharedStore, logger)(freshWallet(), {
      pendingNonce: async () => ((reads += 1), chain.pending()),
      fill: (nonce) => chain.broadcast(filler(nonce)),
    });
    nonces.readAhead();
    await new Promise((resolve) => setImmediate(resolve));
    await nonces.send(sign, (raw) => chain.broadcast(raw));
    expect(reads).toBe(1);
    // Another program sends 5, 6 and 7 after the count (5) was read ahead.
    nonces.readAhead();
    await new Promise((resolve) => setImmediate(resolve));
    for (const nonce of [5, 6, 7]) await chain.broadcast(await sign(nonce));
    // Without a fresh read the retries would try 6 and 7, both taken, and give up.
    const raw = await sendOnOwnNonce(nonces, sign, async (signed) => {
      if (chain.held.has(nonceOf(signed))) throw new Error('nonce too low');
      await chain.broadcast(signed);
    });
    expect(nonceOf(raw)).toBe(8);
    expect(reads).toBe(3);
  });

  it("fills the nonce of another instance's settlement that died before its send, never sending it", async () => {
    const chain = node(0);
    const { wallet, a, b } = instancesOn(chain);
    await a.send(sign, (raw) => chain.broadcast(raw));
    void a.send(dies, (raw) => chain.broadcast(raw));
    await waitFor(async () => (await server.client.exists(nonceKey(wallet, 1))) > 0, {
      what: 'the lease of nonce 1',
      everyMs: 5,
    });
    // Its process is gone: the lease of nonce 1 ends unrenewed (here at once rather than after LEASE_MS).
    await server.client.del(nonceKey(wallet, 1));
    await b.send(sign, (raw) => chain.broadcast(raw));
    expect(sorted([...chain.held])).toEqual([0, 1, 2]);
    expect(chain.received.toSorted()).toEqual([await sign(0), filler(1), await sign(2)].toSorted());
    expect(chain.received).not.toContain(await sign(1));
  });

  it("leaves a live settlement's nonce alone, and fills it once abandoned, from the settlement waiting behind it", async () => {
    const chain = node(0);
    const { wallet, a, b } = instancesOn(chain);
    void a.send(dies, (raw) => chain.broadcast(raw));
    await waitFor(async () => (await server.client.exists(nonceKey(wallet, 0))) > 0, {
      what: 'the lease of nonce 0',
      everyMs: 5,
    });
    await b.send(sign, (raw) => chain.broadcast(raw));
    await b.fillAbandoned();
    // Nonce 0's settlement is alive (its lease held): b's transaction waits behind it.
    expect(await chain.pending()).toBe(0);
    await server.client.del(nonceKey(wallet, 0));
    await b.fillAbandoned();
    expect(await chain.pending()).toBe(2);
    expect(chain.received).toEqual([await sign(1), filler(0)]);
  });

  it('gives back at once a nonce whose send failed: the next allocation fills it', async () => {
    const chain = node(3);
    const { a, b } = instancesOn(chain);
    await expect(a.send(sign, async () => Promise.reject(new Error('the RPC dropped it')))).rejects.toThrow();
    await b.send(sign, (raw) => chain.broadcast(raw));
    expect(chain.received.toSorted()).toEqual([filler(3), await sign(4)].toSorted());
    expect(await chain.pending()).toBe(5);
  });

  it('leaves a sent nonce to its settlement until it gives it back, then fills it', async () => {
    // Nonce 3 is taken by the node, never mined, and its authorization expires: the node still says 3.
    const received: `0x${string}`[] = [];
    const record = async (raw: `0x${string}`) => void received.push(raw);
    const { a, b } = instancesOn({ pending: async () => 3, broadcast: record });
    await a.send(sign, record);
    await b.send(sign, record);
    await b.fillAbandoned();
    expect(received).toEqual([await sign(3), await sign(4)]);
    await a.reissue(3);
    expect(received).toEqual([await sign(3), await sign(4), filler(3)]);
    // A nonce the chain already counts is left alone.
    await a.reissue(2);
    expect(received).toHaveLength(3);
  });

  it('allocates nothing after a failed chain read', async () => {
    let fail = true;
    const chain = node(3);
    const { a } = instancesOn({
      pending: async () => {
        if (fail) throw new Error('the RPC is down');
        return chain.pending();
      },
      broadcast: (raw) => chain.broadcast(raw),
    });
    await expect(a.send(sign, (raw) => chain.broadcast(raw))).rejects.toThrow('the RPC is down');
    fail = false;
    await a.send(sign, (raw) => chain.broadcast(raw));
    expect(chain.received).toEqual([await sign(3)]);
  });

  it("fills a dead instance's unsent nonce within NONCE_LEASE_MS, while a live one keeps its lease", async () => {
    // Time is the feature: how long later transactions of the wallet wait behind a dead settlement.
    const chain = node(0);
    const dying = connectSharedStore(server.url, logger);
    await ready(dying);
    const { wallet, a, b } = instancesOn(chain);
    const dead = redisSettlerNonces(dying, logger)(wallet, {
      pendingNonce: chain.pending,
      fill: (nonce) => chain.broadcast(filler(nonce)),
    });
    void dead.send(dies, (raw) => chain.broadcast(raw));
    while (!(await server.client.exists(nonceKey(wallet, 0)))) await sleep(5);
    void a.send(dies, (raw) => chain.broadcast(raw));
    while (!(await server.client.exists(nonceKey(wallet, 1)))) await sleep(5);
    // `kill -9` of the first: its connection gone, nothing renews the lease of nonce 0.
    dying.redis.disconnect();
    const killed = performance.now();
    await b.send(sign, (raw) => chain.broadcast(raw));
    while (!chain.received.includes(filler(0))) {
      expect(performance.now() - killed, 'the dead nonce is filled').toBeLessThan(NONCE_LEASE_MS * 10);
      await b.fillAbandoned();
      await sleep(50);
    }
    expect(performance.now() - killed).toBeLessThan(NONCE_LEASE_MS + 1_000);
    // The live settlement, renewed every 500 ms, still holds nonce 1 past a lease.
    await sleep(NONCE_LEASE_MS);
    await b.fillAbandoned();
    expect(chain.received.filter(isFiller)).toEqual([filler(0)]);
    expect(await server.client.exists(nonceKey(wallet, 1))).toBe(1);
    await dying.close();
  }, 30_000);

  it('releases a nonce whose allocation answer was lost in a CLIENT PAUSE as soon as Redis answers again', async () => {
    const chain = node(0);
    const { wallet, a, b } = instancesOn(chain);
    // Longer than the command timeout: the allocation times out here, and Redis runs it after the pause.
    await server.client.call('CLIENT', 'PAUSE', String(COMMAND_TIMEOUT_MS * 2), 'WRITE');
    await expect(a.send(sign, (raw) => chain.broadcast(raw))).rejects.toThrow(/timed out/i);
    const next = `${KEY_PREFIX}wallet:8453:${wallet.address}:next`;
    while ((await server.client.get(next)) === null) await sleep(10);
    const ran = performance.now();
    while (await server.client.exists(nonceKey(wallet, 0))) await sleep(10);
    // Released, not left to end with its lease.
    expect(performance.now() - ran).toBeLessThan(NONCE_LEASE_MS);
    await b.send(sign, (raw) => chain.broadcast(raw));
    expect(chain.received.toSorted()).toEqual([filler(0), await sign(1)].toSorted());
    expect(chain.received).not.toContain(await sign(0));
  }, 20_000);

  it('keeps its own highest nonce as a floor when Redis restarts empty with its send still on the way', async () => {
    const chain = node(60);
    const { a, b } = instancesOn(chain);
    await a.send(sign, (raw) => chain.broadcast(raw));
    // Nonce 61 is on its way to the node (not counted yet) when Redis restarts empty.
    let arrive!: () => void;
    const travelling = a.send(sign, (raw) =>
      new Promise<void>((resolve) => (arrive = resolve)).then(() => chain.broadcast(raw)),
    );
    while (arrive === undefined) await sleep(5);
    await server.stop();
    while (stores.some((store) => store.reachable())) await sleep(10);
    await server.start();
    await server.client.connect().catch(() => {});
    await Promise.all(stores.map(ready));
    await a.send(sign, (raw) => chain.broadcast(raw));
    arrive();
    await travelling;
    expect(chain.received.map(nonceOf)).toEqual([60, 62, 61]);
    // Another instance's next allocation, past the store's count, takes the next one.
    await b.send(sign, (raw) => chain.broadcast(raw));
    expect(chain.received.map(nonceOf)).toEqual([60, 62, 61, 63]);
  }, 20_000);

  it('never hands out a nonce twice after Redis restarts empty: the chain is the floor', async () => {
    const chain = node(40);
    const { a, b } = instancesOn(chain);
    for (let i = 0; i < 3; i += 1) await a.send(sign, (raw) => chain.broadcast(raw));
    await server.stop();
    await waitFor(() => stores.every((store) => !store.reachable()), {
      what: 'both stores to see redis-server gone',
    });
    await server.start();
    await server.client.connect().catch(() => {});
    await Promise.all(stores.map(ready));
    // Redis forgot every nonce (the stores' write probes may already be back: not counted).
    expect(await server.client.keys('wallet:*')).toEqual([]);
    await b.send(sign, (raw) => chain.broadcast(raw));
    expect(chain.received.map(nonceOf)).toEqual([40, 41, 42, 43]);
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
    // Written after the answer is returned (a check does not wait on Redis): b reads it once there.
    const key = `${KEY_PREFIX}answer:ct:${domain}`;
    await waitFor(async () => (await server.client.exists(key)) > 0, { what: "a's answer in Redis" });
    const elsewhere = await b!.get(domain, load);
    expect(upstream).toBe(1);
    expect(elsewhere.cached).toBe(true);
    expect(elsewhere.result).toEqual({ ok: true, value: answer(domain) });
    const ttl = await server.client.pttl(key);
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
    // Writes go out in order on one connection: once a later good answer is there, a write of the
    // failure would be too.
    const later = `shared-${++keys}.example`;
    await a!.get(later, async () => ({ ok: true, value: answer(later) }));
    await waitFor(async () => (await server.client.exists(`${KEY_PREFIX}answer:ct:${later}`)) > 0, {
      what: 'the later good answer in Redis',
    });
    expect(await server.client.exists(`${KEY_PREFIX}answer:ct:${domain}`)).toBe(0);
  });
});

describe('a store that refuses writes or stalls', () => {
  /** Polls `store.condition()` until it is `wanted`; the elapsed milliseconds. */
  async function until(store: SharedStore, wanted: StoreCondition, what: string): Promise<number> {
    const started = performance.now();
    while (store.condition() !== wanted) {
      expect(performance.now() - started, what).toBeLessThan(20_000);
      await sleep(20);
    }
    return performance.now() - started;
  }

  it('reads refusing_writes while Redis is out of memory under noeviction, reachable within 2 s of room', async () => {
    const [a] = stores;
    await until(a!, 'reachable', 'reachable at first');
    await server.client.config('SET', 'maxmemory', '1');
    try {
      await until(a!, 'refusing_writes', 'out of memory');
      await expect(instances()[0]!.lock.acquire(freshKey())).rejects.toThrow(/OOM/);
    } finally {
      await server.client.config('SET', 'maxmemory', '0');
    }
    // Time is the feature: a load balancer sends payers again within 2 s of recovery.
    expect(await until(a!, 'reachable', 'room again')).toBeLessThan(2_000);
  }, 30_000);

  it('reads stalled once a CLIENT PAUSE lasts over a second, reachable within 2 s of its end', async () => {
    const [a] = stores;
    await until(a!, 'reachable', 'reachable at first');
    const pauseMs = 3_000;
    await server.client.call('CLIENT', 'PAUSE', String(pauseMs), 'WRITE');
    const paused = performance.now();
    await until(a!, 'stalled', 'stalled in the pause');
    expect(performance.now() - paused).toBeGreaterThanOrEqual(STALL_MS - 100);
    await until(a!, 'reachable', 'answering again');
    expect(performance.now() - paused - pauseMs).toBeLessThan(2_000);
  }, 30_000);
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
    await waitFor(() => !stores[0]!.reachable(), { what: 'the store to see redis-server gone' });

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
