/**
 * One check of a domain per round across a fleet: two instances' watch runtimes (as `REDIS_URL`
 * wires them: the Redis store, claims of 16 under a 60 s lease, the round board) over a real
 * redis-server, running the real site-health check against the world. Forty watches of one domain
 * due together cost the world's upstreams one check's worth of calls, and every watch commits its
 * new state and its event; a holder of the domain's lease that dies leaves the round to a waiter
 * once its lease runs out.
 */
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { LEASE_MS } from '../../src/payments/server/lock-lease.ts';
import { redisAuthorizations } from '../../src/redis/authorizations.ts';
import { connectSharedStore, KEY_PREFIX, type SharedStore } from '../../src/redis/connection.ts';
import { redisRoundBoard } from '../../src/redis/watch-rounds.ts';
import { redisWatchStore } from '../../src/redis/watch-store.ts';
import { createRunners } from '../../src/runners.ts';
import { nodeReach } from '../../src/sources/node-reach.ts';
import { noWatchMetrics } from '../../src/watches/metrics.ts';
import { eventId, type WatchEvent } from '../../src/watches/model.ts';
import type { WatchStore } from '../../src/watches/ports.ts';
import { type RoundBoard, sharedRoundCheck } from '../../src/watches/round-check.ts';
import { siteHealthCheck, storeWatchRuntime, type WatchRuntime } from '../../src/watches/runtime.ts';
import { createWatchSecrets } from '../../src/watches/secrets.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import { startWorld, type World } from '../world/index.ts';
import { watchRecord } from '../world/watch-records.ts';
import { waitFor } from '../support/wait-for.ts';

const DOMAIN = 'healthy-shop.com';
const WATCHES = 40;
const SECRET_KEY = 'round-test-key-0123456789abcdef0123456789';
const silent = pino({ level: 'silent' });

let server: RedisServer;
let world: World;
let connections: SharedStore[] = [];

beforeAll(async () => {
  [server, world] = await Promise.all([startRedisServer(), startWorld()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.close(), world?.close()]);
});
afterEach(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
  connections = [];
  await server.client.flushall();
  world.reset();
});

async function connect(): Promise<SharedStore> {
  const connection = connectSharedStore(server.url, silent);
  connections.push(connection);
  await waitFor(() => connection.reachable(), { what: 'the connection to redis-server' });
  return connection;
}

const config = () =>
  loadConfig({ ...world.env, LOG_LEVEL: 'silent', WATCH_INTERVAL_S: '600', WATCH_SECRET_KEY: SECRET_KEY });

/** Fresh runners, as a new instance has them (nothing cached). */
const freshCheck = () =>
  siteHealthCheck(
    createRunners(config(), {
      fetch: globalThis.fetch,
      now: () => new Date(),
      reach: nodeReach(world.site.caPem),
    }),
  );

/** What the world's upstreams have been asked about the domain so far. */
function upstreamCalls() {
  return {
    site: world.site.requests.filter((request) => request.headers.host?.startsWith(DOMAIN)).length,
    crtsh: world.crtsh.requests.length,
    doh: world.doh.queries.filter((query) => query.name.endsWith(DOMAIN)).length,
  };
}

const since = (before: ReturnType<typeof upstreamCalls>) => {
  const now = upstreamCalls();
  return { site: now.site - before.site, crtsh: now.crtsh - before.crtsh, doh: now.doh - before.doh };
};

/** One site-health check's worth of calls, made by a fresh instance. */
async function oneCheckWorth() {
  const before = upstreamCalls();
  expect((await freshCheck()(DOMAIN)).type).toBe('result');
  return since(before);
}

/** Forty active watches of the domain, due now, each with `probe.failed` raised (a healthy check clears it). */
async function dueWatches(store: WatchStore): Promise<string[]> {
  const now = Date.now();
  const ids = Array.from({ length: WATCHES }, (_, i) => `wat_round${String(i).padStart(3, '0')}`);
  for (const id of ids) {
    const pending = watchRecord(id, {
      domain: DOMAIN,
      webhookUrl: null,
      createdAt: now,
      expiresAt: now + 30 * 86_400_000,
    });
    await store.insert(pending);
    const active = {
      ...pending,
      status: 'active' as const,
      conditions: ['probe.failed'],
      nextCheckAt: now - 1_000,
      dueAt: now - 1_000,
      version: 1,
    };
    expect(await store.commit({ watch: active, expectedVersion: 0, events: [], deliveries: [] })).toBe(true);
  }
  return ids;
}

/** The board as an instance uses it, telling the test who was refused the lease (a waiter). */
function watchedBoard(board: RoundBoard, refused: () => void): RoundBoard {
  return {
    outcomes: board.outcomes,
    leases: {
      async acquire(key) {
        const release = await board.leases.acquire(key);
        if (!release) refused();
        return release;
      },
    },
  };
}

interface Instance {
  runtime: WatchRuntime;
  /** Resolves once `count` commits landed, fleet-wide. */
  committed: (count: number) => Promise<void>;
}

/** Two instances, each with its own connection, store, runners and round board. */
async function fleet(onRefused: () => void) {
  let commits = 0;
  const waiting = new Set<{ count: number; resolve: () => void }>();
  const counted = (store: WatchStore): WatchStore => ({
    ...store,
    async commit(commit) {
      const written = await store.commit(commit);
      if (written) commits += 1;
      for (const waiter of waiting)
        if (commits >= waiter.count) {
          waiting.delete(waiter);
          waiter.resolve();
        }
      return written;
    },
  });
  const committed = (count: number) =>
    commits >= count ? Promise.resolve() : new Promise<void>((resolve) => waiting.add({ count, resolve }));
  const instances: Instance[] = [];
  for (const _ of [0, 1]) {
    const connection = await connect();
    const runtime = storeWatchRuntime(
      counted(redisWatchStore(connection)),
      { batch: 16, leaseMs: 60_000, maxSleepMs: 200 },
      watchedBoard(redisRoundBoard(connection, silent), onRefused),
    )({
      config: config(),
      check: freshCheck(),
      send: () => Promise.reject(new Error('pull-only watches send nothing')),
      secrets: createWatchSecrets(SECRET_KEY),
      logger: silent,
      metrics: noWatchMetrics,
    });
    instances.push({ runtime, committed });
  }
  return { instances, committed };
}

async function expectEveryWatchMovedOn(store: WatchStore, ids: string[]) {
  const checkedAt = new Set<string>();
  for (const id of ids) {
    const watch = await store.get(id);
    expect(watch).toMatchObject({ version: 2, conditions: [], failures: 0 });
    checkedAt.add(String(watch?.lastResult?.checked_at));
    const events: WatchEvent[] = await store.events(id, 0, 10);
    expect(events.map((event) => [event.id, event.type, event.data.cleared])).toEqual([
      [eventId(id, 1), 'watch.alert', ['probe.failed']],
    ]);
  }
  // One check's result, handed to every watch.
  expect(checkedAt.size).toBe(1);
}

describe('a round across two instances sharing one Redis', () => {
  it('checks a domain once for forty watches due together; every watch commits its state and event', async () => {
    const worth = await oneCheckWorth();
    expect(worth.site).toBeGreaterThan(0);
    const ids = await dueWatches(redisWatchStore(await connect()));

    let refusals = 0;
    let firstRefusal: () => void = () => {};
    const refused = new Promise<void>((resolve) => (firstRefusal = resolve));
    const { instances, committed } = await fleet(() => {
      refusals += 1;
      firstRefusal();
    });
    // crt.sh holds the first check in flight until the other instance has come for the domain too.
    let letGo: () => void = () => {};
    world.crtsh.hold = new Promise<void>((resolve) => (letGo = resolve));
    const before = upstreamCalls();
    for (const instance of instances) instance.runtime.start();
    const crtshAsked = world.crtsh.arrival(
      (request) => world.crtsh.requests.indexOf(request) >= before.crtsh,
    );
    await Promise.all([refused, crtshAsked]);
    letGo();
    await committed(WATCHES);
    await Promise.all(instances.map((instance) => instance.runtime.stop()));

    expect(refusals).toBeGreaterThanOrEqual(1);
    expect(since(before)).toEqual(worth);
    await expectEveryWatchMovedOn(redisWatchStore(await connect()), ids);
    // The round's outcome is a cache: it expires with the round's window (a quarter of 600 s).
    const ttl = await server.client.pttl(`${KEY_PREFIX}answer:round:${DOMAIN}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(150_000);
  }, 60_000);

  it('leaves the round to a waiter when the holder of the domain’s lease died', async () => {
    const worth = await oneCheckWorth();
    const ids = await dueWatches(redisWatchStore(await connect()));
    // An instance took the domain's lease and was killed: its connection is gone, its lease is not.
    const dead = connectSharedStore(server.url, silent);
    await waitFor(() => dead.reachable(), { what: "the doomed instance's connection" });
    const release = await redisAuthorizations(dead, silent).lock.acquire(`round:${DOMAIN}`);
    expect(release).not.toBeNull();
    dead.redis.disconnect();
    const leaseKey = `${KEY_PREFIX}lock:round:${DOMAIN}`;
    expect(await server.client.pttl(leaseKey)).toBeGreaterThan(0);

    let refusals = 0;
    const { instances, committed } = await fleet(() => (refusals += 1));
    const before = upstreamCalls();
    const startedAt = Date.now();
    for (const instance of instances) instance.runtime.start();
    await committed(WATCHES);
    const tookMs = Date.now() - startedAt;
    await Promise.all(instances.map((instance) => instance.runtime.stop()));
    // Stops the dead holder's renewal timer (its release cannot land: the lease had run out).
    await release?.();

    // Both instances waited on the dead lease, then one checked for all.
    expect(refusals).toBeGreaterThanOrEqual(2);
    expect(since(before)).toEqual(worth);
    await expectEveryWatchMovedOn(redisWatchStore(await connect()), ids);
    // Not stalled: the round went on within the lease's length (a tenfold margin on a loaded machine).
    expect(tookMs).toBeLessThan(LEASE_MS * 10);
  }, 120_000);

  it.each([
    ['not JSON', '{"type":"result","result":'],
    ['a result of another shape', JSON.stringify({ type: 'result', result: { domain: DOMAIN } })],
    [
      'an injection-shaped failure',
      JSON.stringify({ type: 'upstream_failed', upstreams: [{ name: 'x', error: "'; FLUSHALL" }] }),
    ],
  ])('takes a round outcome that is %s as a miss, logged once, and checks', async (_, text) => {
    const key = `${KEY_PREFIX}answer:round:${DOMAIN}`;
    await server.client.set(key, text, 'PX', 60_000);
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
    const calls: string[] = [];
    const check = sharedRoundCheck(
      async (domain) => {
        calls.push(domain);
        return freshCheck()(domain);
      },
      redisRoundBoard(await connect(), logger),
      { windowMs: 60_000 },
    );
    const outcome = await check(DOMAIN);
    expect(outcome.type).toBe('result');
    expect(calls).toEqual([DOMAIN]);
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] ?? '')).toMatchObject({ key: `answer:round:${DOMAIN}` });
    expect(warnings[0]).not.toContain(text.slice(0, 12));
    // The check's own outcome replaced it, for the others of the round.
    expect(JSON.parse((await server.client.get(key)) ?? '')).toEqual(outcome);
    expect(await check(DOMAIN)).toEqual(outcome);
    expect(calls).toHaveLength(1);
  });
});
