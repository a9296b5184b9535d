/**
 * Watches on a fleet: three `npm start` processes sharing one `REDIS_URL` (a real redis-server),
 * paid by the official `@x402/fetch` client on anvil, delivering to a real receiver on loopback that
 * verifies every signature with the `standardwebhooks` package. The world flips its site's probe to
 * raise and clear `probe.failed`: each event reaches the receiver once whichever instances checked
 * and delivered it, and after a `kill -9` of the instance in the middle of a delivery the event
 * still arrives, from another instance, with the same `webhook-id`.
 */
import { execFileSync } from 'node:child_process';
import { wrapFetchWithPayment } from '@x402/fetch';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import {
  type SelfSettlingService,
  type SettlementWorld,
  startSettlementWorld,
} from '../world/self-settling-service.ts';
import { clientFor } from '../world/payer-client.ts';
import {
  type HoldingWebhookReceiver,
  type ReceivedWebhook,
  startHoldingWebhookReceiver,
} from '../world/holding-webhook-receiver.ts';
import { FUNDS, leaksIn } from './charged-iff-delivered.ts';

const DOMAIN = 'healthy-shop.com';
/** A watch's checks come this often (seconds): the schedule of the test. */
const INTERVAL_S = 2;

interface Bought {
  watch_id: string;
  token: string;
  webhook_secret: string;
  domain: string;
}

interface WatchEventBody {
  id: string;
  type: string;
  watch_id: string;
  data: { raised?: string[]; cleared?: string[] };
}

let settlement: SettlementWorld;
let redis: RedisServer;
let receiver: HoldingWebhookReceiver;
let services: SelfSettlingService[];
const bought: Bought[] = [];

beforeAll(async () => {
  [settlement, redis, receiver] = await Promise.all([
    startSettlementWorld(),
    startRedisServer(),
    startHoldingWebhookReceiver(),
  ]);
  const env = {
    REDIS_URL: redis.url.href,
    PUBLIC_BASE_URL: 'https://checks.example.test',
    WATCH_SECRET_KEY: 'fleet-watch-key-0123456789abcdef0123456789',
    WATCH_INTERVAL_S: String(INTERVAL_S),
    // A day of 864 s: retries after 50 ms, 300 ms, 1.2 s, 6 s…; a 2-day watch outlives the file.
    WATCH_DAY_S: '864',
  };
  services = await Promise.all([0, 1, 2].map(() => settlement.startService({ env })));
}, 120_000);
afterAll(async () => {
  await settlement?.close();
  await Promise.all([redis?.close(), receiver?.close()]);
});

const output = () => services.map((service) => service.process.output()).join('\n');
const eventOf = (delivery: ReceivedWebhook) => JSON.parse(delivery.body) as WatchEventBody;
const deliveriesOf = (watchId: string) =>
  receiver.received.filter((delivery) => eventOf(delivery).watch_id === watchId);
const secretOf = (watchId: string) => bought.find((watch) => watch.watch_id === watchId)!.webhook_secret;

async function buy(service: SelfSettlingService, domain: string): Promise<Bought> {
  const payer = await settlement.newPayer(FUNDS);
  const paying = wrapFetchWithPayment(fetch, clientFor(payer));
  const res = await paying(new URL('/v1/watches', service.process.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ domain, webhook_url: receiver.url.href, days: 2 }),
  });
  expect(res.status).toBe(201);
  const watch = (await res.json()) as Bought;
  expect(FUNDS - (await settlement.chain.balanceOf(payer.address))).toBeGreaterThan(0n);
  bought.push(watch);
  return watch;
}

/** Which instance's process holds the connection the receiver sees from `port`. */
function senderOf(port: number): SelfSettlingService {
  const sockets = execFileSync('ss', ['-Htnp', 'state', 'established', `( sport = :${port} )`], {
    encoding: 'utf8',
  });
  const pid = Number(/pid=(\d+)/.exec(sockets)?.[1]);
  const service = services.find((candidate) => candidate.process.pid === pid);
  if (!service) throw new Error(`no instance holds port ${port}: ${sockets}`);
  return service;
}

/** Every delivery so far verifies under its watch's secret, and no webhook-id arrived twice. */
function expectSignedOnce(): void {
  for (const delivery of receiver.received) {
    const event = receiver.verify(delivery, secretOf(eventOf(delivery).watch_id)) as WatchEventBody;
    expect(event.id).toBe(delivery.id);
  }
  const ids = receiver.received.map((delivery) => delivery.id);
  expect(new Set(ids).size).toBe(ids.length);
}

const alerted = (watchId: string, key: 'raised' | 'cleared') =>
  deliveriesOf(watchId).some((delivery) => eventOf(delivery).data[key]?.includes('probe.failed') === true);

describe('watches on three instances sharing one Redis', () => {
  beforeEach(() =>
    onTestFailed(() => {
      const logged = output()
        .split('\n')
        .filter((line) => /watch|"level":[45]0/.test(line));
      const received = receiver.received.map((delivery) => delivery.body.slice(0, 160));
      process.stderr.write(`${[...logged.slice(-40), ...received].join('\n')}\n`);
    }),
  );
  it('checks and delivers each event once fleet-wide, signed, as the site fails and recovers', async () => {
    for (const i of [0, 1, 2, 3]) await buy(services[i % 3]!, DOMAIN);
    await receiver.until(() => bought.every((watch) => deliveriesOf(watch.watch_id).length >= 1));
    for (const watch of bought) expect(eventOf(deliveriesOf(watch.watch_id)[0]!).type).toBe('watch.created');

    settlement.world.site.mode = 'server-error';
    await receiver.until(() => bought.every((watch) => alerted(watch.watch_id, 'raised')));
    settlement.world.site.mode = null;
    await receiver.until(() => bought.every((watch) => alerted(watch.watch_id, 'cleared')));

    expectSignedOnce();
    // Every event each watch raised (pull, on any instance: the same store) reached the receiver
    // exactly once: no event missed, none delivered twice by two instances.
    for (const [i, watch] of bought.entries()) {
      const res = await fetch(new URL(`/v1/watches/${watch.watch_id}`, services[i % 3]!.process.url), {
        headers: { authorization: `Bearer ${watch.token}` },
      });
      expect(res.status).toBe(200);
      const status = (await res.json()) as { events: { id: string }[] };
      const raised = status.events.map((event) => event.id);
      expect(raised.length).toBeGreaterThanOrEqual(3);
      await receiver.until(() => raised.every((id) => deliveriesOf(watch.watch_id).some((d) => d.id === id)));
      expectSignedOnce();
      expect(eventOf(deliveriesOf(watch.watch_id)[0]!).type).toBe('watch.created');
    }
    expect(leaksIn(output(), services[0]!.secrets)).toEqual([]);
  }, 120_000);

  it('delivers an event whose sender was killed mid-delivery from another instance, with the same webhook-id', async () => {
    const watch = bought[0]!;
    const hold = receiver.holdNext(
      (delivery) => eventOf(delivery).watch_id === watch.watch_id && eventOf(delivery).type === 'watch.ended',
    );
    const cancelled = await fetch(new URL(`/v1/watches/${watch.watch_id}`, services[0]!.process.url), {
      method: 'DELETE',
      headers: { authorization: `Bearer ${watch.token}` },
    });
    expect(cancelled.status).toBe(200);
    const held = await hold.entered;
    expect(eventOf(held).type).toBe('watch.ended');
    const sender = senderOf(held.remotePort);
    sender.process.signal('SIGKILL');
    await sender.process.exited;

    // The lease of the killed instance's claim runs out (60 s); another instance delivers it again.
    await receiver.until((received) => received.some((delivery) => delivery.id === held.id));
    const again = receiver.received.find((delivery) => delivery.id === held.id)!;
    expect(again.body).toBe(held.body);
    expect(receiver.verify(again, watch.webhook_secret)).toEqual(JSON.parse(held.body));
    expectSignedOnce();

    // The survivors go on: a new state of the site is still delivered to every watch (at least its
    // second raise: a probe that timed out on a loaded machine while the site was healthy raises and
    // clears one more time, shared by the watches of the round; each delivery still signed once).
    const survivors = bought.slice(1);
    settlement.world.site.mode = 'server-error';
    await receiver.until(() =>
      survivors.every(
        (w) =>
          deliveriesOf(w.watch_id).filter((d) => eventOf(d).data.raised?.includes('probe.failed')).length >=
          2,
      ),
    );
    settlement.world.site.mode = null;
    expectSignedOnce();
    expect(
      deliveriesOf(watch.watch_id)
        .map((delivery) => eventOf(delivery).type)
        .at(-1),
    ).toBe('watch.ended');
  }, 180_000);
});
