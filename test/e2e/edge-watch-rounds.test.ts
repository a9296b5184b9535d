/**
 * One check of a domain per round on the Worker, in local workerd: three watches of one domain,
 * each its own Durable Object with its own alarm, ask the domain's object (`DomainCheckObject`) for
 * the round's outcome. The world's site sees one check's worth of probes for the round (and one for its
 * confirming second look), every watch
 * still raises and delivers its own event (signed, verified with `standardwebhooks`), and the three
 * hold the same result.
 */
import { wrapFetchWithPayment } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EdgeWatchWorld, startEdgeWatchWorld } from '../world/edge-watch-world.ts';
import { clientFor } from '../world/payer-client.ts';
import type { ReceivedWebhook } from '../world/holding-webhook-receiver.ts';

const FUNDS = 1_000_000n; // 1 USDC
const DOMAIN = 'healthy-shop.com';
/**
 * The interval. A watch's first check comes at the domain's first slot (a tenth of the interval
 * apart) one interval after its purchase, and the round's window is two and a half slots (15 s):
 * purchases made together, less than 9 s apart on a loaded machine, meet in the first one's round.
 */
const INTERVAL_S = 60;

interface Bought {
  watch_id: string;
  token: string;
  webhook_secret: string;
}

interface WatchEventBody {
  id: string;
  type: string;
  watch_id: string;
  data: { raised?: string[] };
}

let running: EdgeWatchWorld;

beforeAll(async () => {
  running = await startEdgeWatchWorld({ WATCH_INTERVAL_S: String(INTERVAL_S), WATCH_DAY_S: '864' });
}, 120_000);
afterAll(() => running?.close());

const eventOf = (delivery: ReceivedWebhook) => JSON.parse(delivery.body) as WatchEventBody;
const probes = () =>
  running.world.site.requests.filter((request) => request.headers.host?.startsWith(DOMAIN)).length;

async function buy(instance: number): Promise<Bought> {
  const { chain, edge, receiver } = running;
  const payer = privateKeyToAccount(generatePrivateKey());
  await chain.fund(payer.address, FUNDS);
  const paying = wrapFetchWithPayment(fetch, clientFor(payer));
  const res = await paying(new URL('/v1/watches', edge.urls[instance]), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ domain: DOMAIN, webhook_url: receiver.url.href, days: 2 }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Bought;
}

describe('a round on the Worker', () => {
  it('checks a domain once for three watches, each of which still gets its event', async () => {
    const { world, edge, receiver } = running;
    // Bought together, the three are first due within a slot or two of each other: one round.
    const before = probes();
    const watches = await Promise.all([0, 1, 0].map(buy));
    // Each paid call ran its buyer's own first check: one check's worth of probes each.
    const perCheck = (probes() - before) / watches.length;
    expect(perCheck).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(perCheck)).toBe(true);
    const created = (watch: Bought) =>
      receiver.received.some(
        (d) => eventOf(d).watch_id === watch.watch_id && eventOf(d).type === 'watch.created',
      );
    await receiver.until(() => watches.every(created));

    const roundStart = probes();
    world.site.mode = 'server-error';
    const alerted = (watch: Bought) =>
      receiver.received.find(
        (d) =>
          eventOf(d).watch_id === watch.watch_id && eventOf(d).data.raised?.includes('probe.failed') === true,
      );
    await receiver.until(() => watches.every((watch) => alerted(watch) !== undefined));
    world.site.mode = null;

    // The round's check and the second look that confirms probe.failed (WATCH_CONFIRM_S later):
    // two checks' worth of probes for the round, not two per watch.
    expect(probes() - roundStart).toBe(2 * perCheck);
    for (const watch of watches) {
      const delivery = alerted(watch) as ReceivedWebhook;
      expect((receiver.verify(delivery, watch.webhook_secret) as WatchEventBody).watch_id).toBe(
        watch.watch_id,
      );
    }
    const results = await Promise.all(
      watches.map(async (watch) => {
        const res = await fetch(new URL(`/v1/watches/${watch.watch_id}`, edge.urls[1]), {
          headers: { authorization: `Bearer ${watch.token}` },
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { last_result: { checked_at: string } }).last_result.checked_at;
      }),
    );
    expect(new Set(results).size).toBe(1);
  }, 180_000);
});
