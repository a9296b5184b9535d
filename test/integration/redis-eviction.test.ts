/**
 * The Redis of `compose.yaml` under memory pressure: full, it must evict nothing (every key of the
 * service has a TTL, so any `volatile-*` policy could pick a payment lock, and a lock evicted lets a
 * copy of the signature run a second time). New writes are refused instead: a CT answer is then
 * not shared (refetched at worst) and a new paid call answers 503; no lock held is ever lost.
 * Run against a real redis-server configured with the policy `compose.yaml` ships.
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { redisAuthorizations } from '../../src/redis/authorizations.ts';
import { connectSharedStore, KEY_PREFIX, type SharedStore } from '../../src/redis/connection.ts';
import { redisSharedAnswers } from '../../src/redis/shared-answers.ts';
import { CT_CACHE_TTL_MS } from '../../src/sources/ct/lookup.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import { waitFor } from '../support/wait-for.ts';

const logger = pino({ level: 'silent' });
const ANSWER = 'x'.repeat(150_000);

/** The `--maxmemory-policy` of compose.yaml's `redis` service. */
async function composePolicy(): Promise<string> {
  const compose = parse(await readFile(new URL('../../compose.yaml', import.meta.url), 'utf8')) as {
    services: { redis: { command: string[] } };
  };
  const { command } = compose.services.redis;
  const policy = command[command.indexOf('--maxmemory-policy') + 1];
  if (!policy) throw new Error('compose.yaml sets no --maxmemory-policy for redis');
  return policy;
}

async function usedMemory(server: RedisServer): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await server.client.info('memory'))?.[1]);
}

let server: RedisServer;
let store: SharedStore;

beforeAll(async () => {
  server = await startRedisServer();
  await server.client.config('SET', 'maxmemory-policy', await composePolicy());
  store = connectSharedStore(server.url, logger);
  await waitFor(() => store.reachable(), { what: 'the connection to redis-server' });
});
afterAll(async () => {
  await store?.close();
  await server?.close();
});

it("evicts nothing when compose.yaml's Redis is full: locks in flight stay, new writes are refused", async () => {
  const answers = redisSharedAnswers(store);
  const { lock } = redisAuthorizations(store, logger);
  // What a running fleet holds: CT answers from the last minutes.
  for (let i = 0; i < 40; i += 1) await answers.set(`ct:old-${i}.example`, ANSWER, CT_CACHE_TTL_MS);
  await server.client.config('SET', 'maxmemory', String((await usedMemory(server)) + 1_500_000));
  // Redis's access clock ticks once a second: the locks are younger than every answer above.
  await sleep(1_100);
  const keys = Array.from({ length: 10 }, (_, i) => `0x${'1'.repeat(40)}:0x${String(i).padStart(64, '0')}`);
  const held = await Promise.all(keys.map((key) => lock.acquire(key)));
  expect(held.every((release) => typeof release === 'function')).toBe(true);
  // Then more answers than fit: the server is full.
  let refused = 0;
  for (let i = 0; i < 20; i += 1)
    await answers.set(`ct:new-${i}.example`, ANSWER, CT_CACHE_TTL_MS).catch(() => (refused += 1));
  expect(refused).toBeGreaterThan(0);
  expect(Number(/evicted_keys:(\d+)/.exec(await server.client.info('stats'))?.[1])).toBe(0);

  const kept = await server.client.exists(...keys.map((key) => `${KEY_PREFIX}lock:${key}`));
  expect(kept).toBe(keys.length);
  // And so no copy of those signatures is let run (refused 409, or 503 while the server is full).
  const copies = await Promise.all(keys.map((key) => lock.acquire(key).catch(() => 'unavailable')));
  expect(copies.every((copy) => copy === null || copy === 'unavailable')).toBe(true);
}, 30_000);
