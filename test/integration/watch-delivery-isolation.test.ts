/**
 * One receiver delays only its own watch, on one SQLite instance and on a Redis fleet's store: the
 * real scheduler and steered sender deliver to loopback receivers while 16 others hang (each on its
 * own host and port, every request held unanswered). A calm watch's deliveries arrive while all 16
 * are still held, with a lag within 1.5 times its lag alone; an always-500 receiver gets its retries
 * on schedule meanwhile; one host gets at most its bound of attempts at once; a cancellation drops
 * the watch's pending deliveries. What a receiver gets is verified with `standardwebhooks`.
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSharedStore, type SharedStore } from '../../src/redis/connection.ts';
import { redisWatchStore } from '../../src/redis/watch-store.ts';
import { createNodeTransport, createPublicFetch } from '../../src/sources/public-fetch/index.ts';
import { connectSocket } from '../../src/sources/public-fetch/node-transport.ts';
import { deliveriesFor } from '../../src/watches/delivery.ts';
import { eventId, type WatchRecord } from '../../src/watches/model.ts';
import type { WatchStore } from '../../src/watches/ports.ts';
import { HOST_CONCURRENCY, createWatchScheduler } from '../../src/watches/scheduler.ts';
import { createWatchSecrets } from '../../src/watches/secrets.ts';
import { createWebhookSender } from '../../src/watches/sender.ts';
import { openSqliteWatchStore } from '../../src/sqlite/watch-store.ts';
import { startRedisServer, type RedisServer } from '../world/redis-server.ts';
import { watchRecord } from '../world/watch-records.ts';
import { closeHolding, conditions } from '../world/conditions.ts';

/** A 100-times shorter day: retries 50 ms, 300 ms, 1.2 s after the failed attempts. */
const DAY_S = 864;
const HANGING = 16;
const secrets = createWatchSecrets('delivery-isolation-key-0123456789abcdef');

interface Receiver {
  url: string;
  /** Arrival time of each request, with its webhook id. */
  arrivals: { at: number; id: string; body: string; headers: Record<string, string> }[];
  /** Requests held unanswered now. */
  holding: () => number;
  /** Resolves once `count` requests arrived. */
  arrived(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A receiver on its own port answering `status`, or holding every request (`hang`). */
async function startReceiver(status: number | 'hang'): Promise<Receiver> {
  const held = new Set<ServerResponse>();
  const arrivals: Receiver['arrivals'] = [];
  const seen = conditions();
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
        name,
        String(request.headers[name]),
      ]),
    );
    arrivals.push({
      at: Date.now(),
      id: headers['webhook-id'] ?? '',
      body: Buffer.concat(chunks).toString(),
      headers,
    });
    if (status === 'hang') {
      held.add(response);
      response.once('close', () => held.delete(response));
    } else response.writeHead(status).end();
    seen.changed();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    holding: () => held.size,
    arrived: (count) => seen.until(() => arrivals.length >= count),
    close: () => closeHolding(server, held),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * Below this a lag is noise of a loaded machine (timers, the event loop), not a delay: the ratio is
 * taken over at least it. A round that waited for a hanging receiver would cost its 60 s timeout.
 */
const LAG_FLOOR_MS = 100;

function suite(name: string, open: () => Promise<{ store: WatchStore; close: () => Promise<void> }>) {
  describe(name, () => {
    let store: WatchStore;
    let closeStore: () => Promise<void>;
    let scheduler: ReturnType<typeof createWatchScheduler>;
    const receivers: Receiver[] = [];
    const seq = new Map<string, number>();

    beforeAll(async () => {
      ({ store, close: closeStore } = await open());
      const publicFetch = createPublicFetch({
        resolve: async () => ({ ok: true, value: ['127.0.0.1'] }),
        allowPrivate: true,
        transport: createNodeTransport(connectSocket),
      });
      scheduler = createWatchScheduler({
        store,
        check: () => Promise.reject(new Error('no check is due')),
        // Longer than the test: a hanging receiver holds its attempt throughout.
        send: createWebhookSender(publicFetch, 120_000),
        secrets,
        dayS: DAY_S,
        logger: pino({ level: 'silent' }),
        maxSleepMs: 200,
      });
      scheduler.start();
    }, 30_000);
    afterAll(async () => {
      await Promise.all(receivers.map((receiver) => receiver.close()));
      await scheduler?.stop();
      await closeStore?.();
    }, 30_000);

    async function watchFor(receiver: Receiver, id: string): Promise<WatchRecord> {
      receivers.push(receiver);
      const pending = watchRecord(id, { webhookUrl: receiver.url, dueAt: Date.now() + 86_400_000 });
      await store.insert(pending);
      const active = { ...pending, status: 'active' as const, version: 1 };
      expect(await store.commit({ watch: active, expectedVersion: 0, events: [], deliveries: [] })).toBe(
        true,
      );
      return active;
    }

    /** Raises one event on `watch` now, due at once; resolves when it was enqueued (its due time). */
    async function raiseOn(watch: WatchRecord): Promise<number> {
      const current = (await store.get(watch.id)) as WatchRecord;
      const n = (seq.get(watch.id) ?? current.eventSeq) + 1;
      seq.set(watch.id, n);
      const next = { ...current, eventSeq: n, version: current.version + 1 };
      const at = Date.now();
      const event = {
        id: eventId(watch.id, n),
        type: 'watch.alert' as const,
        watch_id: watch.id,
        domain: watch.domain,
        at: new Date(at).toISOString(),
        data: { raised: ['probe.failed'], cleared: [], unjudged: [] },
      };
      const committed = await store.commit({
        watch: next,
        expectedVersion: current.version,
        events: [event],
        deliveries: deliveriesFor(next, [event], at),
      });
      expect(committed).toBe(true);
      scheduler.wake();
      return at;
    }

    /** Lags of `count` events raised one after another on `watch`, each once the last arrived. */
    async function lagsOf(watch: WatchRecord, receiver: Receiver, count: number): Promise<number[]> {
      const lags: number[] = [];
      for (let i = 0; i < count; i += 1) {
        const dueAt = await raiseOn(watch);
        await receiver.arrived(receiver.arrivals.length + 1);
        lags.push((receiver.arrivals.at(-1)?.at ?? 0) - dueAt);
      }
      return lags;
    }

    it(`delivers a calm watch's events beside ${HANGING} hanging receivers, within 1.5 times its lag alone`, async () => {
      const calm = await startReceiver(204);
      const calmWatch = await watchFor(calm, 'wat_calm');
      const alone = await lagsOf(calmWatch, calm, 5);

      const hanging = await Promise.all(Array.from({ length: HANGING }, () => startReceiver('hang')));
      const hangingWatches = await Promise.all(
        hanging.map((receiver, i) => watchFor(receiver, `wat_hang${i}`)),
      );
      for (const watch of hangingWatches) {
        await raiseOn(watch);
        await raiseOn(watch);
      }
      await Promise.all(hanging.map((receiver) => receiver.arrived(1)));

      const failing = await startReceiver(500);
      const failingWatch = await watchFor(failing, 'wat_500');
      await raiseOn(failingWatch);
      const beside = await lagsOf(calmWatch, calm, 5);
      // The always-500 receiver's first retries come on schedule (50 ms, then 300 ms later).
      await failing.arrived(3);
      const gaps = [1, 2].map((i) => (failing.arrivals[i]?.at ?? 0) - (failing.arrivals[i - 1]?.at ?? 0));

      // All of it happened while every hanging receiver held its one attempt: one per watch.
      expect(hanging.map((receiver) => [receiver.holding(), receiver.arrivals.length])).toEqual(
        hanging.map(() => [1, 1]),
      );
      expect(gaps[0]).toBeGreaterThanOrEqual(45);
      expect(gaps[1]).toBeGreaterThanOrEqual(295);
      expect(gaps[1]).toBeLessThan(gaps[0]! + 300 + 1.5 * Math.max(median(alone), LAG_FLOOR_MS));
      expect(median(beside)).toBeLessThanOrEqual(1.5 * Math.max(median(alone), LAG_FLOOR_MS));
      const secret = await secrets.webhookSecret(calmWatch.id);
      for (const arrival of calm.arrivals)
        expect(new Webhook(secret).verify(arrival.body, arrival.headers)).toMatchObject({ id: arrival.id });
    }, 120_000);

    it('sends one host at most its bound of attempts at once, and others’ deliveries pass meanwhile', async () => {
      const host = await startReceiver('hang');
      const watches = await Promise.all(
        Array.from({ length: HOST_CONCURRENCY + 2 }, (_, i) => watchFor(host, `wat_host${i}`)),
      );
      for (const watch of watches) await raiseOn(watch);
      await host.arrived(HOST_CONCURRENCY);
      const calm = await startReceiver(204);
      await lagsOf(await watchFor(calm, 'wat_calm_host'), calm, 1);
      expect(host.holding()).toBe(HOST_CONCURRENCY);
      expect(host.arrivals).toHaveLength(HOST_CONCURRENCY);
    }, 60_000);

    it('drops a cancelled watch’s pending deliveries', async () => {
      const receiver = await startReceiver('hang');
      const watch = await watchFor(receiver, 'wat_cancel');
      await raiseOn(watch);
      await raiseOn(watch);
      await receiver.arrived(1);
      const current = (await store.get(watch.id)) as WatchRecord;
      const cancelled = { ...current, status: 'cancelled' as const, version: current.version + 1 };
      expect(
        await store.commit({
          watch: cancelled,
          expectedVersion: current.version,
          events: [],
          deliveries: [],
          dropPending: true,
        }),
      ).toBe(true);
      // The attempt in flight ends; nothing else of the watch is left to send.
      await receiver.close();
      receivers.splice(receivers.indexOf(receiver), 1);
      const deadline = Date.now() + 30_000;
      while ((await store.attempts(watch.id, 10)).length === 0) {
        if (Date.now() > deadline) throw new Error('the attempt in flight was never recorded');
        await sleep(20);
      }
      expect(await store.claimDeliveries(Date.now() + 86_400_000, 100, 1)).not.toContainEqual(
        expect.objectContaining({ watchId: watch.id }),
      );
    }, 60_000);
  });
}

suite('one SQLite instance', async () => {
  const store = openSqliteWatchStore(':memory:');
  return { store, close: () => store.close() };
});

let redis: RedisServer | undefined;
suite('a Redis fleet’s store', async () => {
  redis = await startRedisServer();
  const connection: SharedStore = connectSharedStore(redis.url, pino({ level: 'silent' }));
  while (!connection.reachable()) await sleep(10);
  return {
    store: redisWatchStore(connection),
    close: async () => {
      await connection.close();
      await redis?.close();
    },
  };
});
