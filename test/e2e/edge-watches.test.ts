/**
 * Watches on the Worker in local workerd: the paid `POST /v1/watches` (the official `@x402/fetch`
 * client on anvil, self-settlement) creates the watch's Durable Object; its alarm runs the schedule,
 * and the same events and Standard Webhooks signatures as on Node reach a real receiver on
 * loopback (verified with the `standardwebhooks` package) as the world's site fails and recovers.
 * Pull works from another isolate; a wrong token is the same 404 as an unknown id. The
 * `website_checks_watches` gauge comes from the counter object; a watch object reset in the middle
 * of a delivery delivers that event again; one receiver host gets at most 4 attempts at once from all
 * the watch objects together. The Worker runs from the test entry
 * `test/world/edge-watch-crash-worker.ts`: the production Worker with a 2 s lease and a reset hook.
 */
import { wrapFetchWithPayment } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { LocalChain } from '../../src/payments/chain/local-chain.ts';
import type { EdgeService } from '../world/edge-service.ts';
import { type EdgeWatchWorld, startEdgeWatchWorld } from '../world/edge-watch-world.ts';
import type { World } from '../world/index.ts';
import { waitFor } from '../support/wait-for.ts';
import { closeHolding, conditions } from '../world/conditions.ts';
import { probeWarnings } from '../world/x402scan-probe.ts';
import { clientFor } from '../world/payer-client.ts';
import {
  type HoldingWebhookReceiver,
  type ReceivedWebhook,
  startHoldingWebhookReceiver,
} from '../world/holding-webhook-receiver.ts';

/** The production Worker with a 2 s watch lease and a hook that resets a watch's object. */
const EDGE_WATCH_CRASH_ENTRY = fileURLToPath(new URL('../world/edge-watch-crash-worker.ts', import.meta.url));
const FUNDS = 1_000_000n; // 1 USDC
const DOMAIN = 'healthy-shop.com';
const WATCH_SECRET_KEY = 'edge-watch-key-0123456789abcdef0123456789';
const METRICS_TOKEN = 'edge-watches-metrics-token';

interface Bought {
  watch_id: string;
  token: string;
  webhook_secret: string;
  status: string;
}

interface WatchEventBody {
  id: string;
  type: string;
  watch_id: string;
  data: { raised?: string[]; cleared?: string[] };
}

let world: World;
let chain: LocalChain;
let edge: EdgeService;
let receiver: HoldingWebhookReceiver;
let running: EdgeWatchWorld | undefined;

beforeAll(async () => {
  running = await startEdgeWatchWorld(
    { WATCH_SECRET_KEY, WATCH_INTERVAL_S: '2', WATCH_DAY_S: '864', METRICS_TOKEN },
    EDGE_WATCH_CRASH_ENTRY,
  );
  ({ world, chain, edge, receiver } = running);
}, 120_000);
afterAll(() => running?.close());

const at = (path: string, instance = 0) => new URL(path, edge.urls[instance]);
const eventOf = (delivery: ReceivedWebhook) => JSON.parse(delivery.body) as WatchEventBody;
const alerted = (key: 'raised' | 'cleared') =>
  receiver.received.some((delivery) => eventOf(delivery).data[key]?.includes('probe.failed') === true);

/** A watch bought with the official x402 client through `instance`, and what it cost. */
async function buyWatch(instance = 0, webhook: URL = receiver.url) {
  const payer = privateKeyToAccount(generatePrivateKey());
  await chain.fund(payer.address, FUNDS);
  const paying = wrapFetchWithPayment(fetch, clientFor(payer));
  const res = await paying(at('/v1/watches', instance), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ domain: DOMAIN, webhook_url: webhook.href, days: 2 }),
  });
  expect(res.status).toBe(201);
  const watch = (await res.json()) as Bought;
  return { watch, payer, charged: FUNDS - (await chain.balanceOf(payer.address)) };
}

/** `website_checks_watches` by status, as `instance`'s `/metrics` reports it. */
async function watchGauge(instance: number): Promise<Record<string, number>> {
  const res = await fetch(at('/metrics', instance), {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  expect(res.status).toBe(200);
  const gauge: Record<string, number> = {};
  for (const [, status, n] of (await res.text()).matchAll(
    /^website_checks_watches\{status="(\w+)"\} (\d+)$/gm,
  ))
    gauge[status as string] = Number(n);
  return gauge;
}

describe('watches on the Worker in workerd', () => {
  it('reports website_checks_watches by status from one counter object, the same on every isolate', async () => {
    const before = await watchGauge(0);
    expect(Object.keys(before).sort()).toEqual(['active', 'cancelled', 'ended', 'pending']);
    // Their events go to a receiver of their own.
    const other = await startHoldingWebhookReceiver();
    const bought = await Promise.all([buyWatch(0, other.url), buyWatch(1, other.url)]).finally(() =>
      other.close(),
    );
    const expected: Record<string, number> = { ...before, active: before.active! + 2 };
    expect(await watchGauge(0)).toEqual(expected);
    expect(await watchGauge(1)).toEqual(expected);

    const [{ watch }] = bought;
    const cancelled = await fetch(at(`/v1/watches/${watch.watch_id}`, 1), {
      method: 'DELETE',
      headers: { authorization: `Bearer ${watch.token}` },
    });
    expect(cancelled.status).toBe(200);
    const after = { ...expected, active: expected.active! - 1, cancelled: expected.cancelled! + 1 };
    expect(await watchGauge(0)).toEqual(after);
    // Cancelling again changes nothing; a wrong token reaches no object.
    await fetch(at(`/v1/watches/${watch.watch_id}`, 0), {
      method: 'DELETE',
      headers: { authorization: `Bearer ${watch.token}` },
    });
    expect(await watchGauge(1)).toEqual(after);
  }, 120_000);

  it('is probed by x402scan as on Node: the purchase, and the extension with the token, raise no warning', async () => {
    const purchase = { domain: DOMAIN, webhook_url: receiver.url.href, days: 30 };
    expect(await probeWarnings(at('/v1/watches'), purchase)).toEqual([]);
    const other = await startHoldingWebhookReceiver();
    const { watch } = await buyWatch(0, other.url).finally(() => other.close());
    const extend = at(`/v1/watches/${watch.watch_id}/extend`);
    expect(await probeWarnings(extend, { days: 30 }, { authorization: `Bearer ${watch.token}` })).toEqual([]);
  }, 120_000);

  it('sells a watch in one paid call and delivers its events signed, from its object’s alarm', async () => {
    const { watch, payer, charged } = await buyWatch();
    expect(watch.status).toBe('active');
    expect(watch.webhook_secret).toMatch(/^whsec_/);
    expect(charged).toBeGreaterThan(0n);

    await receiver.until((received) => received.length >= 1);
    expect(eventOf(receiver.received[0]!).type).toBe('watch.created');
    world.site.mode = 'server-error';
    await receiver.until(() => alerted('raised'));
    world.site.mode = null;
    await receiver.until(() => alerted('cleared'));

    const ids = receiver.received.map((delivery) => delivery.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const delivery of receiver.received) {
      const event = receiver.verify(delivery, watch.webhook_secret) as WatchEventBody;
      expect([event.id, event.watch_id]).toEqual([delivery.id, watch.watch_id]);
    }
    expect(eventOf(receiver.received[0]!).type).toBe('watch.created');
    // Pull from the other isolate: the same events, newest last, each delivery recorded once the
    // object has the receiver's answer (which may come after the receiver counted the request).
    const pulled = async () => {
      const status = await fetch(at(`/v1/watches/${watch.watch_id}`, 1), {
        headers: { authorization: `Bearer ${watch.token}` },
      });
      expect(status.status).toBe(200);
      return (await status.json()) as { events: { id: string }[]; deliveries: unknown[] };
    };
    const body = await waitFor(
      async () => {
        const now = await pulled();
        return now.deliveries.length >= now.events.length && now;
      },
      { what: 'a recorded delivery for every event' },
    );
    // Every event raised reached the receiver, once (no id twice, above).
    const raised = body.events.map((event) => event.id);
    expect(raised.length).toBeGreaterThanOrEqual(3);
    await receiver.until((received) => raised.every((id) => received.some((delivery) => delivery.id === id)));
    expect(body.deliveries.length).toBeGreaterThanOrEqual(3);

    const wrong = await fetch(at(`/v1/watches/${watch.watch_id}`, 1), {
      headers: { authorization: `Bearer ${watch.token.slice(0, -1)}x` },
    });
    const unknown = await fetch(at(`/v1/watches/wat_${'0'.repeat(32)}`, 0), {
      headers: { authorization: `Bearer ${watch.token}` },
    });
    expect([wrong.status, unknown.status]).toEqual([404, 404]);
    const codes = await Promise.all(
      [wrong, unknown].map(async (r) => ((await r.json()) as { code: string }).code),
    );
    expect(codes).toEqual(['not_found', 'not_found']);
    expect(FUNDS - (await chain.balanceOf(payer.address))).toBe(charged);
  }, 120_000);

  it('delivers a calm watch’s events beside 16 hanging receivers within 1.5 times its lag alone', async () => {
    /** The lag of a new watch's `watch.created`: from its 201 to its arrival at `calm` (`until` resolves on it). */
    async function createdLag(calm: HoldingWebhookReceiver): Promise<number> {
      const { watch } = await buyWatch(0, calm.url);
      const answered = Date.now();
      const isCreated = (d: ReceivedWebhook) =>
        eventOf(d).watch_id === watch.watch_id && eventOf(d).type === 'watch.created';
      await calm.until((received) => received.some(isCreated));
      return Date.now() - answered;
    }
    const calm = await startHoldingWebhookReceiver();
    const hanging = await Promise.all(Array.from({ length: 16 }, () => startHoldingWebhookReceiver()));
    try {
      const alone = await createdLag(calm);
      const held = hanging.map((receiver) => receiver.holdNext().entered);
      for (const receiver of hanging) await buyWatch(0, receiver.url);
      const heldIds = (await Promise.all(held)).map((delivery) => delivery.id);
      const beside = await createdLag(calm);
      // Each hanging receiver got nothing but its held event (again, same webhook-id, once this
      // entry's 2 s lease ran out): its watch's next event waits, no other watch's.
      expect(hanging.map((receiver, i) => receiver.received.every((d) => d.id === heldIds[i]))).toEqual(
        hanging.map(() => true),
      );
      // Below a second a lag is a loaded machine's noise; a round that waited for one hanging
      // receiver would cost its 15 s timeout.
      expect(beside).toBeLessThanOrEqual(1.5 * Math.max(alone, 1_000));
    } finally {
      await Promise.all([calm, ...hanging].map((receiver) => receiver.close()));
    }
  }, 240_000);

  it('sends at most 4 attempts at once to one receiver host, from all the watch objects together', async () => {
    const gate = await startGatedReceiver();
    try {
      // Six watches, each its own object, all delivering to one host (paths apart).
      const watches = await Promise.all(
        Array.from({ length: 6 }, (_, i) => buyWatch(i % 2, new URL(`/hooks/${i}`, gate.url))),
      );
      await gate.until(() => gate.inFlight === 4);
      // The other two wait for a slot of the host's object while the four are held.
      await sleep(2_000);
      expect(gate.peak).toBe(4);
      gate.open();
      const created = (id: string) =>
        gate.received.some((body) => body.watch_id === id && body.type === 'watch.created');
      await gate.until(() => watches.every(({ watch }) => created(watch.watch_id)));
      expect(gate.peak).toBe(4);
    } finally {
      await gate.close();
    }
  }, 120_000);

  it('delivers an event again, same webhook-id and body, after its object was reset mid-delivery', async () => {
    const own = await startHoldingWebhookReceiver();
    try {
      // watch.created reaches the receiver, which holds the request open: the object is mid-delivery.
      const held = own.holdNext();
      const { watch } = await buyWatch(0, own.url);
      const cut = await held.entered;
      const reset = await fetch(at(`/__test/watch-crash/${watch.watch_id}`, 1), { method: 'POST' });
      expect(reset.status, 'the object was reset').toBe(204);

      // The alarm run died with the object; once the claim's lease (2 s here) ran out, the event
      // goes out again from the object's next alarm.
      await own.until((received) => received.some((delivery) => delivery.id === cut.id));
      const again = own.received.find((delivery) => delivery.id === cut.id) as ReceivedWebhook;
      expect(again.body).toBe(cut.body);
      expect(eventOf(again)).toMatchObject({ id: cut.id, type: 'watch.created', watch_id: watch.watch_id });
      own.verify(again, watch.webhook_secret);

      // The cut attempt left no record (its run never finished): not a failed attempt retried on the
      // 15 s timeout's schedule, but the claim taken again after the reset. One attempt, delivered.
      // The receiver's 200 is recorded just after it was sent: read until a record of the event is there.
      let deliveries: { event_id: string; attempt: number; status: number | null; error: string | null }[] =
        [];
      for (let read = 0; !deliveries.some((attempt) => attempt.event_id === cut.id); read++) {
        if (read > 0) await sleep(100);
        const status = await fetch(at(`/v1/watches/${watch.watch_id}`, 0), {
          headers: { authorization: `Bearer ${watch.token}` },
        });
        ({ deliveries } = (await status.json()) as { deliveries: typeof deliveries });
      }
      expect(deliveries.filter((attempt) => attempt.event_id === cut.id)).toEqual([
        expect.objectContaining({ attempt: 1, status: 200, error: null }),
      ]);
    } finally {
      await own.close();
    }
  }, 120_000);
});

/** A receiver that holds every request until `open()`, counting how many are in flight at once. */
async function startGatedReceiver() {
  const held = new Set<ServerResponse>();
  const received: WatchEventBody[] = [];
  const seen = conditions();
  let opened = false;
  const gate = {
    url: new URL('http://127.0.0.1/'),
    received,
    inFlight: 0,
    peak: 0,
    open() {
      opened = true;
      for (const response of held) response.writeHead(200).end();
    },
    until: (predicate: () => boolean) => seen.until(predicate),
    close: () => closeHolding(server, held),
  };
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    gate.inFlight += 1;
    gate.peak = Math.max(gate.peak, gate.inFlight);
    response.once('close', () => {
      gate.inFlight -= 1;
      held.delete(response);
      seen.changed();
    });
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as WatchEventBody);
    if (opened) response.writeHead(200).end();
    else held.add(response);
    seen.changed();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  gate.url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  return gate;
}
