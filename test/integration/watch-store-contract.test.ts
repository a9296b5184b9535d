/**
 * The contract of `src/watches/ports.ts` over every watch store, each on its real storage: embedded
 * SQLite (one Node instance), Redis on a real redis-server (several instances, two connections here)
 * and a Durable Object's storage in local workerd (one object per watch). One payment signature
 * makes one watch, a commit over a stale version writes nothing, a claim hides a watch (or a
 * delivery) from every other claimer until its lease runs out and no longer, attempts apply their
 * verdicts, and nothing the store writes can expire.
 *
 * A Durable Object keeps one watch (its alarm claims its own work), so the properties about several
 * watches in one store run over the stores that keep every watch.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectSharedStore, KEY_PREFIX, type SharedStore } from '../../src/redis/connection.ts';
import { redisWatchStore } from '../../src/redis/watch-store.ts';
import type { DeliveryAttempt, PendingDelivery } from '../../src/watches/delivery.ts';
import { eventId, type WatchEvent, type WatchRecord } from '../../src/watches/model.ts';
import { HISTORY_LIMIT, type WatchStore } from '../../src/watches/ports.ts';
import { openSqliteWatchStore } from '../../src/sqlite/watch-store.ts';
import { waitFor } from '../support/wait-for.ts';
import { type DurableWatchStores, startDurableWatchStores } from '../world/durable-watch-store.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import { STORE_NOW, watchRecord } from '../world/watch-records.ts';

const NOW = STORE_NOW;
const LEASE_MS = 60_000;

interface StoreUnderTest {
  name: string;
  /** Whether one store keeps every watch of the runtime, or one (a Durable Object per watch). */
  keeps: 'every watch' | 'one watch';
  start(): Promise<void>;
  /** Two handles on one fresh, empty store, as two workers of the runtime reach it. */
  open(): Promise<[WatchStore, WatchStore]>;
  stop(): Promise<void>;
  /** Where keys can expire (Redis): every key written, with its time to live (-1: none). */
  keys?: { prefix: string; list(): Promise<{ key: string; ttlMs: number }[]> };
}

/** Embedded SQLite: one instance's store, reached by its scheduler's calls side by side. */
function sqliteStore(): StoreUnderTest {
  let dir: string;
  let opened: WatchStore[] = [];
  return {
    name: 'SQLite',
    keeps: 'every watch',
    async start() {
      dir = await mkdtemp(join(tmpdir(), 'watch-store-contract-'));
    },
    async open() {
      await Promise.all(opened.map((store) => store.close()));
      const store = openSqliteWatchStore(join(dir, `watches-${opened.length}-${Date.now()}.db`));
      opened = [store];
      return [store, store];
    },
    async stop() {
      await Promise.all(opened.map((store) => store.close()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Redis: two instances' stores over two connections to one real redis-server. */
function redisStore(): StoreUnderTest {
  let server: RedisServer;
  let connections: SharedStore[] = [];
  return {
    name: 'Redis',
    keeps: 'every watch',
    async start() {
      server = await startRedisServer();
      connections = [0, 1].map(() => connectSharedStore(server.url, pino({ level: 'silent' })));
      await waitFor(() => connections.every((connection) => connection.reachable()), {
        what: 'both connections to redis-server',
      });
    },
    async open() {
      await server.client.flushall();
      return connections.map(redisWatchStore) as [WatchStore, WatchStore];
    },
    async stop() {
      await Promise.all(connections.map((connection) => connection.close()));
      await server?.close();
    },
    keys: {
      prefix: KEY_PREFIX,
      async list() {
        const keys = await server.client.keys('*');
        return Promise.all(keys.map(async (key) => ({ key, ttlMs: await server.client.pttl(key) })));
      },
    },
  };
}

/** A Durable Object's storage in workerd: two requests to one fresh object. */
function durableObjectStore(): StoreUnderTest {
  let objects: DurableWatchStores;
  let fresh = 0;
  return {
    name: 'Durable Object',
    keeps: 'one watch',
    async start() {
      objects = await startDurableWatchStores();
    },
    async open() {
      fresh += 1;
      const object = `watch-${fresh}`;
      return [objects.store(object), objects.store(object)];
    },
    stop: () => objects?.close() ?? Promise.resolve(),
  };
}

const record = watchRecord;

function event(watch: WatchRecord, seq: number): WatchEvent {
  return {
    id: eventId(watch.id, seq),
    type: 'watch.alert',
    watch_id: watch.id,
    domain: watch.domain,
    at: new Date(NOW).toISOString(),
    data: { raised: ['probe.failed'], cleared: [], note: 'ünïcødé "quoted" \\ back' },
  };
}

function delivery(e: WatchEvent, dueAt = NOW): PendingDelivery {
  return {
    eventId: e.id,
    watchId: e.watch_id,
    url: 'https://hooks.example.net/in',
    body: JSON.stringify(e),
    attempts: 0,
    dueAt,
  };
}

function attempt(d: PendingDelivery, status: number | null, error: string | null): DeliveryAttempt {
  return { event_id: d.eventId, attempt: d.attempts + 1, at: '2026-11-27T00:00:00Z', status, error };
}

const STORES = [sqliteStore(), redisStore(), durableObjectStore()];

describe.each(STORES.map((store) => [store.name, store] as const))('the %s watch store', (_, store) => {
  const several = store.keeps === 'every watch';
  /** Two workers' handles on the store. */
  let a: WatchStore;
  let b: WatchStore;

  beforeAll(() => store.start());
  afterAll(() => store.stop());
  beforeEach(async () => {
    [a, b] = await store.open();
  });

  /** A pending watch activated (version 1, due at `dueAt`) with `events` and their deliveries. */
  async function activated(id: string, dueAt: number, events = 1) {
    const pending = record(id);
    await a.insert(pending);
    const watch = record(id, { status: 'active', version: 1, dueAt, eventSeq: events });
    const raised = Array.from({ length: events }, (_, i) => event(watch, i + 1));
    const deliveries = raised.map((e) => delivery(e));
    expect(await a.commit({ watch, expectedVersion: 0, events: raised, deliveries })).toBe(true);
    return { watch, raised, deliveries };
  }

  it('keeps the first watch of an id: a second insert (a lost 201 claimed again) returns the stored one', async () => {
    const first = record('wat_one');
    expect(await a.insert(first)).toEqual(first);
    expect(await b.insert(record('wat_one', { domain: 'other.example' }))).toEqual(first);
    expect(await b.get('wat_one')).toEqual(first);
    expect(await a.get('wat_unknown')).toBeNull();
    expect(await a.countByStatus()).toEqual({ pending: 1, active: 0, ended: 0, cancelled: 0 });
  });

  it('discards only a pending watch', async () => {
    await a.insert(record('wat_pending'));
    expect(await b.discardPending('wat_pending')).toBe(true);
    expect(await a.get('wat_pending')).toBeNull();
    expect(await a.discardPending('wat_pending')).toBe(false);
    await activated('wat_active', NOW);
    expect(await b.discardPending('wat_active')).toBe(false);
    expect((await a.get('wat_active'))?.status).toBe('active');
    expect(await a.countByStatus()).toEqual({ pending: 0, active: 1, ended: 0, cancelled: 0 });
  });

  it('commits over the expected version only: two workers computing from one version raise its events once', async () => {
    const { watch } = await activated('wat_race', NOW);
    const next = (by: string) => record('wat_race', { ...watch, version: 2, eventSeq: 2, conditions: [by] });
    const commits = await Promise.all(
      [a, b].map((worker, i) =>
        worker.commit({
          watch: next(`by-${i}`),
          expectedVersion: 1,
          events: [event(watch, 2)],
          deliveries: [delivery(event(watch, 2))],
        }),
      ),
    );
    expect([...commits].sort()).toEqual([false, true]);
    expect((await a.events('wat_race', 0, HISTORY_LIMIT)).map((e) => e.id)).toEqual([
      eventId('wat_race', 1),
      eventId('wat_race', 2),
    ]);
    // The losing commit changed nothing: the stored record is the winner's.
    expect((await a.get('wat_race'))?.conditions).toEqual([`by-${commits.indexOf(true)}`]);
  });

  it('hands a due watch to one claimer; its lease hides it until it runs out, and a commit releases it', async () => {
    await activated('wat_due', NOW);
    expect(await a.claimDue(NOW, 0, LEASE_MS)).toEqual([]);
    const [first, second] = await Promise.all([a.claimDue(NOW, 10, LEASE_MS), b.claimDue(NOW, 10, LEASE_MS)]);
    expect([...first!, ...second!].map((w) => w.id)).toEqual(['wat_due']);
    // Still leased a moment before the lease ends; claimable again after (its holder died).
    expect(await b.claimDue(NOW + LEASE_MS - 1, 10, LEASE_MS)).toEqual([]);
    expect((await b.claimDue(NOW + LEASE_MS, 10, LEASE_MS)).map((w) => w.id)).toEqual(['wat_due']);
    // A commit puts it back at its next due time.
    const claimed = (await a.get('wat_due'))!;
    const advanced = { ...claimed, version: 2, dueAt: NOW + 5_000 };
    expect(await a.commit({ watch: advanced, expectedVersion: 1, events: [], deliveries: [] })).toBe(true);
    expect(await a.nextDueAt()).toBe(NOW + 5_000);
    expect((await b.claimDue(NOW + 5_000, 10, LEASE_MS)).map((w) => w.id)).toEqual(['wat_due']);
  });

  it.runIf(several)('hides only the leased watch: another comes due beside it', async () => {
    await activated('wat_due', NOW);
    await activated('wat_later', NOW + 10_000);
    expect((await a.claimDue(NOW, 10, LEASE_MS)).map((w) => w.id)).toEqual(['wat_due']);
    expect(await b.claimDue(NOW + LEASE_MS - 1, 10, LEASE_MS)).toEqual([
      expect.objectContaining({ id: 'wat_later' }),
    ]);
  });

  it.runIf(several)('claims at most `limit`, earliest first, and schedules only active watches', async () => {
    for (let i = 0; i < 5; i += 1) await activated(`wat_${i}`, NOW + (5 - i));
    await a.insert(record('wat_unpaid', { dueAt: NOW }));
    expect((await a.claimDue(NOW + 10, 3, LEASE_MS)).map((w) => w.id)).toEqual(['wat_4', 'wat_3', 'wat_2']);
    const ended = { ...(await a.get('wat_1'))!, status: 'ended' as const, version: 2 };
    expect(await a.commit({ watch: ended, expectedVersion: 1, events: [], deliveries: [] })).toBe(true);
    expect((await b.claimDue(NOW + 10, 10, LEASE_MS)).map((w) => w.id)).toEqual(['wat_0']);
    expect(await a.countByStatus()).toEqual({ pending: 1, active: 4, ended: 1, cancelled: 0 });
    expect(await a.nextDueAt()).toBe(NOW + 10 + LEASE_MS);
  });

  it('schedules nothing while it keeps no active watch, nor a pending one', async () => {
    expect(await a.nextDueAt()).toBeNull();
    expect(await a.nextDeliveryAt()).toBeNull();
    await a.insert(record('wat_unpaid', { dueAt: NOW }));
    expect(await a.claimDue(NOW, 10, LEASE_MS)).toEqual([]);
    expect(await b.nextDueAt()).toBeNull();
  });

  it('lists a pending watch opened by a given time until it is activated', async () => {
    const { createdAt } = record('wat_open');
    await a.insert(record('wat_open'));
    expect(await b.pendingOpenedBy(createdAt - 1, 10)).toEqual([]);
    expect(await b.pendingOpenedBy(createdAt, 0)).toEqual([]);
    expect((await b.pendingOpenedBy(createdAt, 10)).map((w) => w.id)).toEqual(['wat_open']);
    const active = record('wat_open', { status: 'active', version: 1 });
    expect(await a.commit({ watch: active, expectedVersion: 0, events: [], deliveries: [] })).toBe(true);
    expect(await b.pendingOpenedBy(createdAt, 10)).toEqual([]);
  });

  it.runIf(several)('lists pending watches oldest first, at most `limit`', async () => {
    for (const [id, at] of [
      ['wat_new', NOW],
      ['wat_old', NOW - 2],
      ['wat_mid', NOW - 1],
    ] as const)
      await a.insert(record(id, { createdAt: at }));
    await activated('wat_paid', NOW);
    expect((await b.pendingOpenedBy(NOW, 2)).map((w) => w.id)).toEqual(['wat_old', 'wat_mid']);
    expect((await b.pendingOpenedBy(NOW - 1, 10)).map((w) => w.id)).toEqual(['wat_old', 'wat_mid']);
  });

  it('keeps the latest HISTORY_LIMIT events, lists those after `since`, oldest first', async () => {
    const { watch } = await activated('wat_history', NOW, 0);
    let current = watch;
    for (let seq = 1; seq <= HISTORY_LIMIT + 20; seq += 1) {
      const next = { ...current, version: current.version + 1, eventSeq: seq };
      expect(
        await a.commit({
          watch: next,
          expectedVersion: current.version,
          events: [event(next, seq)],
          deliveries: [],
        }),
      ).toBe(true);
      current = next;
    }
    const all = await b.events('wat_history', 0, HISTORY_LIMIT);
    expect(all).toHaveLength(HISTORY_LIMIT);
    expect(all[0]!.id).toBe(eventId('wat_history', 21));
    expect(all.at(-1)!.id).toBe(eventId('wat_history', HISTORY_LIMIT + 20));
    expect(all[0]!.data).toEqual(event(current, 21).data);
    expect((await b.events('wat_history', HISTORY_LIMIT + 17, HISTORY_LIMIT)).map((e) => e.id)).toEqual(
      [118, 119, 120].map((seq) => eventId('wat_history', seq)),
    );
    expect(await b.events('wat_history', HISTORY_LIMIT + 20, HISTORY_LIMIT)).toEqual([]);
  });

  it.runIf(several)('lists no events of a watch it does not keep', async () => {
    await activated('wat_some', NOW, 2);
    expect(await b.events('wat_none', 0, HISTORY_LIMIT)).toEqual([]);
    expect(await b.attempts('wat_none', HISTORY_LIMIT)).toEqual([]);
  });

  it('hands each due delivery to one claimer, leased and one per watch; a retry reschedules it, delivered and given up remove it', async () => {
    const { deliveries } = await activated('wat_hooks', NOW + 60_000, 3);
    const [d1, d2, d3] = deliveries as [PendingDelivery, PendingDelivery, PendingDelivery];
    const [first, second] = await Promise.all([
      a.claimDeliveries(NOW, 10, LEASE_MS),
      b.claimDeliveries(NOW, 10, LEASE_MS),
    ]);
    // One attempt in flight per watch: the earliest, to one claimer; the others wait for its record.
    expect([...first!, ...second!]).toEqual([d1]);
    expect(await a.claimDeliveries(NOW + LEASE_MS - 1, 10, LEASE_MS)).toEqual([]);
    expect(await b.nextDeliveryAt()).toBe(NOW + LEASE_MS);
    await a.recordAttempt(d1, attempt(d1, 200, null), { kind: 'delivered' });
    expect(await b.nextDeliveryAt()).toBe(NOW);
    expect(await b.claimDeliveries(NOW, 10, LEASE_MS)).toEqual([d2]);
    await b.recordAttempt(d2, attempt(d2, 503, 'http_status'), { kind: 'retry', dueAt: NOW + 5_000 });
    expect(await a.claimDeliveries(NOW, 10, LEASE_MS)).toEqual([d3]);
    await a.recordAttempt(d3, attempt(d3, null, 'timeout'), { kind: 'given_up' });
    expect(await b.nextDeliveryAt()).toBe(NOW + 5_000);
    expect(await b.claimDeliveries(NOW + 4_999, 10, LEASE_MS)).toEqual([]);
    expect(await b.claimDeliveries(NOW + 5_000, 10, LEASE_MS)).toEqual([
      { ...d2, attempts: 1, dueAt: NOW + 5_000 },
    ]);
    expect(await a.attempts('wat_hooks', HISTORY_LIMIT)).toEqual([
      attempt(d1, 200, null),
      attempt(d2, 503, 'http_status'),
      attempt(d3, null, 'timeout'),
    ]);
    expect(await a.attempts('wat_hooks', 1)).toEqual([attempt(d3, null, 'timeout')]);
  });

  it('drops a watch’s pending deliveries with a commit that says so, and its attempt in flight records nothing back', async () => {
    const { watch, deliveries } = await activated('wat_drop', NOW + 60_000, 2);
    const [inFlight] = (await a.claimDeliveries(NOW, 10, LEASE_MS)) as [PendingDelivery];
    const cancelled = { ...watch, status: 'cancelled' as const, version: watch.version + 1, eventSeq: 3 };
    const ended = event(cancelled, 3);
    const once = { ...deliveries[0]!, eventId: ended.id, body: JSON.stringify(ended), once: true };
    expect(
      await b.commit({
        watch: cancelled,
        expectedVersion: watch.version,
        events: [ended],
        deliveries: [once],
        dropPending: true,
      }),
    ).toBe(true);
    await a.recordAttempt(inFlight, attempt(inFlight, 500, 'http_status'), { kind: 'retry', dueAt: NOW });
    expect(await b.claimDeliveries(NOW + LEASE_MS * 10, 10, LEASE_MS)).toEqual([once]);
  });

  it('gives a delivery whose claimer died to the next claimer, unchanged (the same webhook-id)', async () => {
    const { deliveries } = await activated('wat_crash', NOW + 60_000);
    expect(await a.claimDeliveries(NOW, 10, LEASE_MS)).toEqual(deliveries);
    // Worker a is killed here: it records nothing.
    expect(await b.claimDeliveries(NOW + LEASE_MS, 10, LEASE_MS)).toEqual(deliveries);
  });

  it('stops every delivery of a watch on 410 and marks its webhook gone without a new version', async () => {
    const { watch, deliveries } = await activated('wat_gone', NOW + 60_000, 2);
    const [d1] = deliveries as [PendingDelivery];
    await a.recordAttempt(d1, attempt(d1, 410, 'gone'), { kind: 'gone' });
    expect(await b.claimDeliveries(NOW + LEASE_MS * 10, 10, LEASE_MS)).toEqual([]);
    expect(await b.nextDeliveryAt()).toBeNull();
    expect(await b.get('wat_gone')).toEqual({ ...watch, webhookGone: true });
    // A retry recorded late for a delivery that 410 removed does not bring it back.
    const d2 = deliveries[1]!;
    await b.recordAttempt(d2, attempt(d2, 500, 'http_status'), { kind: 'retry', dueAt: NOW });
    expect(await b.claimDeliveries(NOW + LEASE_MS * 10, 10, LEASE_MS)).toEqual([]);
    // A check computed from the record before the 410 keeps it gone and enqueues nothing more.
    const later = { ...watch, version: 2, eventSeq: 3 };
    const raised = event(later, 3);
    expect(
      await a.commit({ watch: later, expectedVersion: 1, events: [raised], deliveries: [delivery(raised)] }),
    ).toBe(true);
    expect(await b.get('wat_gone')).toEqual({ ...later, webhookGone: true });
    expect((await b.claimDue(later.dueAt, 10, LEASE_MS))[0]?.webhookGone).toBe(true);
    expect(await b.claimDeliveries(NOW + LEASE_MS * 10, 10, LEASE_MS)).toEqual([]);
    expect((await b.events('wat_gone', 2, HISTORY_LIMIT)).map((e) => e.id)).toEqual([raised.id]);
  });

  it.runIf(store.keys)('writes no key that can expire, and only under the service prefix', async () => {
    await activated('wat_ttl', NOW, 2);
    await a.insert(record('wat_ttl_pending'));
    const [d] = await a.claimDeliveries(NOW, 1, LEASE_MS);
    await a.recordAttempt(d!, attempt(d!, 500, 'http_status'), { kind: 'retry', dueAt: NOW + 1 });
    const keys = await store.keys!.list();
    expect(keys.length).toBeGreaterThan(5);
    for (const { key, ttlMs } of keys) {
      expect(key.startsWith(store.keys!.prefix), key).toBe(true);
      expect(ttlMs, key).toBe(-1);
    }
  });

  it('keeps hostile ids and payloads as data', async () => {
    const id = "wat_'); redis.call('FLUSHALL') --\u0000\u{1F600}";
    const hostile = record(id, { domain: 'xn--bcher-kva.example', conditions: ['"]}\\'] });
    expect(await a.insert(hostile)).toEqual(hostile);
    expect(await b.get(id)).toEqual(hostile);
    expect(await b.countByStatus()).toEqual({ pending: 1, active: 0, ended: 0, cancelled: 0 });
    if (store.keys) expect((await store.keys.list()).length).toBeGreaterThan(0);
  });
});
