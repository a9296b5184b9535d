/**
 * The shared payment state of `REDIS_URL` against a real redis-server on loopback, seen from two
 * connections as two instances see it: one signature locked once fleet-wide, a lost result claimed
 * once from any instance, one settler wallet's nonces never handed out twice, and an outage that
 * fails fast and heals by itself.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_MS } from '../../src/payments/lock-lease.ts';
import { REDELIVERY_WINDOW_MS } from '../../src/payments/undelivered.ts';
import { redisAuthorizations } from '../../src/redis/authorizations.ts';
import { connectSharedStore, KEY_PREFIX, type SharedStore } from '../../src/redis/connection.ts';
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
  it('are claimed once, on any instance, only with the signature that settled them', async () => {
    const [a, b] = instances();
    const key = freshKey();
    await a!.undelivered.remember(key, SIGNATURE, RECEIPT);
    expect(await b!.undelivered.claim(key, `0x${'00'.repeat(65)}`)).toBeNull();
    const claims = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b)!.undelivered.claim(key, SIGNATURE)),
    );
    expect(claims.filter((claim) => claim !== null)).toEqual([RECEIPT]);
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
  const wallet = { address: `0x${'c0'.repeat(20)}` as const, chainId: 8453 };

  it('never hands out one twice and sends one at a time, even when the chain lags behind', async () => {
    let chainPending = 5;
    let sending = 0;
    let mostAtOnce = 0;
    const nonces = stores.map((store) =>
      redisSettlerNonces(store, logger)(wallet, {
        client: undefined as never,
        // The node counts a sent transaction only later (a load-balanced RPC): the store must cover it.
        pendingNonce: async () => chainPending,
      }),
    );
    const used = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        nonces[i % 2]!.send(async (nonce) => {
          sending += 1;
          mostAtOnce = Math.max(mostAtOnce, sending);
          await sleep(2);
          sending -= 1;
          return nonce;
        }),
      ),
    );
    expect(new Set(used).size).toBe(30);
    expect(Math.min(...used)).toBe(5);
    expect(Math.max(...used)).toBe(34);
    expect(mostAtOnce).toBe(1);

    // The chain moved past the store (another program sent, or the store forgot): the chain wins.
    chainPending = 50;
    expect(await nonces[0]!.send(async (nonce) => nonce)).toBe(50);
    // A transaction known never to be used: its nonce is reissued from the chain's count.
    chainPending = 49;
    nonces[1]!.reissue();
    await sleep(50);
    expect(await nonces[0]!.send(async (nonce) => nonce)).toBe(49);
    const lease = `${KEY_PREFIX}wallet:8453:${wallet.address}:lease`;
    expect(await server.client.exists(lease)).toBe(0);
    expect(await server.client.pttl(`${KEY_PREFIX}wallet:8453:${wallet.address}:next`)).toBeGreaterThan(0);
  });

  it('counts a nonce as used once it was handed to a send that failed, but not after a failed chain read', async () => {
    const other = { ...wallet, address: `0x${'d0'.repeat(20)}` as const };
    let fail = true;
    const nonces = redisSettlerNonces(stores[0]!, logger)(other, {
      client: undefined as never,
      pendingNonce: async () => {
        if (fail) throw new Error('the RPC is down');
        return 3;
      },
    });
    await expect(nonces.send(async (nonce) => nonce)).rejects.toThrow('the RPC is down');
    fail = false;
    await expect(nonces.send(async () => Promise.reject(new Error('send failed')))).rejects.toThrow();
    expect(await nonces.send(async (nonce) => nonce)).toBe(4);
  });
});

describe('an unreachable store', () => {
  it('fails commands at once (no queue, no resend), reports it, and heals when Redis returns', async () => {
    const [a] = instances();
    await server.stop();
    const started = performance.now();
    await expect(a!.lock.acquire(freshKey())).rejects.toThrow();
    await expect(a!.undelivered.claim(freshKey(), SIGNATURE)).rejects.toThrow();
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
