/**
 * Watches on the Worker in local workerd: the paid `POST /v1/watches` (the official `@x402/fetch`
 * client on anvil, self-settlement) creates the watch's Durable Object; its alarm runs the schedule,
 * and the same events and Standard Webhooks signatures as on Node reach a real receiver on
 * loopback (verified with the `standardwebhooks` package) as the world's site fails and recovers.
 * Pull works from another isolate; a wrong token is the same 404 as an unknown id.
 */
import { wrapFetchWithPayment } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalChain } from '../../src/payments/local-chain.ts';
import type { EdgeService } from '../world/edge-service.ts';
import { type EdgeWatchWorld, startEdgeWatchWorld } from '../world/edge-watch-world.ts';
import type { World } from '../world/index.ts';
import { x402ClientFor } from '../world/paying-clients.ts';
import type { HoldingWebhookReceiver, ReceivedWebhook } from '../world/holding-webhook-receiver.ts';

const FUNDS = 1_000_000n; // 1 USDC
const DOMAIN = 'healthy-shop.com';
const WATCH_SECRET_KEY = 'edge-watch-key-0123456789abcdef0123456789';

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
  running = await startEdgeWatchWorld({ WATCH_SECRET_KEY, WATCH_INTERVAL_S: '2', WATCH_DAY_S: '864' });
  ({ world, chain, edge, receiver } = running);
}, 120_000);
afterAll(() => running?.close());

const at = (path: string, instance = 0) => new URL(path, edge.urls[instance]);
const eventOf = (delivery: ReceivedWebhook) => JSON.parse(delivery.body) as WatchEventBody;
const alerted = (key: 'raised' | 'cleared') =>
  receiver.received.some((delivery) => eventOf(delivery).data[key]?.includes('probe.failed') === true);

describe('watches on the Worker in workerd', () => {
  it('sells a watch in one paid call and delivers its events signed, from its object’s alarm', async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await chain.fund(payer.address, FUNDS);
    const paying = wrapFetchWithPayment(fetch, x402ClientFor(payer));
    const res = await paying(at('/v1/watches'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ domain: DOMAIN, webhook_url: receiver.url.href, days: 2 }),
    });
    expect(res.status).toBe(201);
    const watch = (await res.json()) as Bought;
    expect(watch.status).toBe('active');
    expect(watch.webhook_secret).toMatch(/^whsec_/);
    const charged = FUNDS - (await chain.balanceOf(payer.address));
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
    // Pull from the other isolate: the same events, newest last.
    const status = await fetch(at(`/v1/watches/${watch.watch_id}`, 1), {
      headers: { authorization: `Bearer ${watch.token}` },
    });
    expect(status.status).toBe(200);
    const body = (await status.json()) as { events: { id: string }[]; deliveries: unknown[] };
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
});
