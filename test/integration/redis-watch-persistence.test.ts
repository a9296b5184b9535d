/**
 * The Redis of `compose.yaml` keeps the fleet's watches: run with the options that file gives it
 * (append-only file, its memory bound and `noeviction`), a watch and its pending delivery survive a
 * `kill -9` of Redis itself, and a full Redis refuses new CT answers rather than evicting anything.
 */
import { readFile } from 'node:fs/promises';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { connectSharedStore, type SharedStore } from '../../src/redis/connection.ts';
import { redisSharedAnswers } from '../../src/redis/shared-answers.ts';
import { redisWatchStore } from '../../src/redis/watch-store.ts';
import { CT_CACHE_TTL_MS } from '../../src/sources/ct/lookup.ts';
import type { PendingDelivery } from '../../src/watches/delivery.ts';
import { eventId, type WatchRecord } from '../../src/watches/model.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import { STORE_NOW, watchRecord } from '../world/watch-records.ts';
import { waitFor } from '../support/wait-for.ts';

const NOW = STORE_NOW;
const WATCHES = 200;

/** The options compose.yaml starts its `redis` service with. */
async function composeRedisArgs(): Promise<string[]> {
  const compose = parse(await readFile(new URL('../../compose.yaml', import.meta.url), 'utf8')) as {
    services: { redis: { command: string[] } };
  };
  const [program, ...args] = compose.services.redis.command;
  expect(program).toBe('redis-server');
  return args;
}

let server: RedisServer;
let store: SharedStore;

async function connect(): Promise<SharedStore> {
  const connection = connectSharedStore(server.url, pino({ level: 'silent' }));
  await waitFor(() => connection.reachable(), { what: 'the connection to redis-server' });
  return connection;
}

beforeAll(async () => {
  const args = await composeRedisArgs();
  expect(args.join(' ')).toMatch(/--appendonly yes/);
  server = await startRedisServer(args);
  store = await connect();
});
afterAll(async () => {
  await store?.close();
  await server?.close();
});

function watch(i: number): WatchRecord {
  return watchRecord(`wat_${i}`, {
    domain: `site-${i}.example`,
    conditions: ['probe.failed'],
    eventSeq: 1,
    version: 1,
  });
}

it("keeps every watch through a kill -9 of compose.yaml's Redis and when it is full", async () => {
  const watches = redisWatchStore(store);
  for (let i = 0; i < WATCHES; i += 1) {
    const pending = { ...watch(i), version: 0, eventSeq: 0 };
    await watches.insert(pending);
    const event = {
      id: eventId(pending.id, 1),
      type: 'watch.created' as const,
      watch_id: pending.id,
      domain: pending.domain,
      at: '2026-11-27T00:00:00Z',
      data: {},
    };
    const delivery: PendingDelivery = {
      eventId: event.id,
      watchId: pending.id,
      url: 'https://hooks.example.net/in',
      body: JSON.stringify(event),
      attempts: 0,
      dueAt: NOW,
    };
    expect(
      await watches.commit({
        watch: { ...watch(i), status: 'active' },
        expectedVersion: 0,
        events: [event],
        deliveries: [delivery],
      }),
    ).toBe(true);
  }

  // Every acknowledged write is in the append-only file (written before the reply): a Redis killed
  // at once and started again has them all.
  await store.close();
  await server.stop();
  await server.start();
  store = await connect();
  const after = redisWatchStore(store);
  expect(await after.countByStatus()).toEqual({ pending: 0, active: WATCHES, ended: 0, cancelled: 0 });
  expect(await after.get('wat_7')).toEqual({ ...watch(7), status: 'active' });

  // Full: under noeviction new CT answers are refused (OOM), and nothing, a watch least, is evicted.
  const answers = redisSharedAnswers(store);
  const used = Number(/used_memory:(\d+)/.exec(await server.client.info('memory'))?.[1]);
  await server.client.config('SET', 'maxmemory', String(used + 2_000_000));
  for (let i = 0; i < 40; i += 1) {
    await answers.set(`ct:full-${i}.example`, 'x'.repeat(150_000), CT_CACHE_TTL_MS).catch(() => {});
  }
  expect(Number(/evicted_keys:(\d+)/.exec(await server.client.info('stats'))?.[1])).toBe(0);
  expect(
    Number(/errorstat_OOM:count=(\d+)/.exec(await server.client.info('errorstats'))?.[1]),
  ).toBeGreaterThan(0);
  expect(await after.countByStatus()).toEqual({ pending: 0, active: WATCHES, ended: 0, cancelled: 0 });
  for (let i = 0; i < WATCHES; i += 1) expect((await after.get(`wat_${i}`))?.status).toBe('active');
  // Room again (as CT answers' TTLs run out): every pending delivery is still there to claim.
  await server.client.config('SET', 'maxmemory', String(used + 64_000_000));
  expect(await after.claimDeliveries(NOW, WATCHES * 2, 60_000)).toHaveLength(WATCHES);
});
