/**
 * Buying a watch while the instance serving it is killed (`kill -9`), paid by the official x402
 * client on anvil, delivering to a receiver on loopback that verifies signatures with the
 * `standardwebhooks` package:
 * - a fleet (one settler key, one Redis), killed during the first check, before the settlement is
 *   sent, after it reached the chain: the payer is not charged until the retry of the same request
 *   with the same signature on another instance, which gets the 201 of the same watch (id and token
 *   derived from that signature), active, its `watch.created` delivered once; charged the price once.
 * - one instance without Redis (SQLite at `WATCH_DB_PATH`), killed after its settlement reached the
 *   chain and restarted on the same files: the retry gets the 201 of the same watch; with no retry,
 *   the pending watch survives, and the sweep
 *   activates it from the chain once it is older than any paid call, so `watch.created` still
 *   reaches the payer's receiver.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePrivateKey, type PrivateKeyAccount } from 'viem/accounts';
import { decodePaymentSignatureHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAID_CALL_MAX_MS } from '../../src/payments/server/identified-answers.ts';
import { exactAuthorizationOf } from '../../src/payments/exact-authorization.ts';
import { SWEEP_EVERY_MS } from '../../src/watches/pending-sweep.ts';
import { watchPriceAtomic } from '../../src/watches/pricing.ts';
import { createWatchSecrets } from '../../src/watches/secrets.ts';
import {
  type HoldingWebhookReceiver,
  type ReceivedWebhook,
  startHoldingWebhookReceiver,
} from '../world/holding-webhook-receiver.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import {
  type SelfSettlingService,
  type SettlementWorld,
  startSettlementWorld,
} from '../world/self-settling-service.ts';
import { FUNDS, leaksIn } from './charged-iff-delivered.ts';
import {
  answerOf,
  chargedOf,
  expectNoNonceGap,
  type Fleet,
  killAfterSend,
  killBeforeSend,
  killDuringCheck,
  mined,
  type PaidAnswer,
  type PaidRequest,
  retryUntilServed,
  watchRequest,
} from './paid-call-crash.ts';

const WATCH_SECRET_KEY = 'watch-crash-test-key-0123456789abcdef0123';
const secrets = createWatchSecrets(WATCH_SECRET_KEY);
const DAYS = 2;
const PRICE = BigInt(watchPriceAtomic('0.10', DAYS));
/** Checks far apart: the only events are the ones buying makes. */
const WATCH_ENV = { WATCH_SECRET_KEY, WATCH_INTERVAL_S: '3600' };

let settlement: SettlementWorld;
let redis: RedisServer;
let receiver: HoldingWebhookReceiver;
let dir: string;

beforeAll(async () => {
  [settlement, redis, receiver] = await Promise.all([
    startSettlementWorld(),
    startRedisServer(),
    startHoldingWebhookReceiver(),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'watch-crash-'));
}, 120_000);
afterAll(async () => {
  await settlement?.close();
  await Promise.all([redis?.close(), receiver?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const eventOf = (delivery: ReceivedWebhook) =>
  JSON.parse(delivery.body) as { id: string; type: string; watch_id: string };
const buying = (domain: string) => watchRequest({ domain, days: DAYS, webhook_url: receiver.url.href });
const charged = (payer: PrivateKeyAccount) => chargedOf(settlement, payer, FUNDS);

/** The watch a signature buys: its id and token, as the service derives them. */
async function watchOf(signature: string) {
  const id = await secrets.watchId(
    exactAuthorizationOf(decodePaymentSignatureHeader(signature))?.signature ?? '',
  );
  return { id, token: await secrets.token(id) };
}

async function statusOf(service: SelfSettlingService, { id, token }: { id: string; token: string }) {
  const res = await fetch(new URL(`/v1/watches/${id}`, service.process.url), {
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      status?: string;
      events?: { id: string; type: string }[];
      deliveries?: { event_id: string; status: number | null }[];
    },
  };
}

/** Nothing bought: the payer is not charged and no watch answers to the signature's token. */
async function expectNothingBought(
  service: SelfSettlingService,
  payer: PrivateKeyAccount,
  signature: string,
) {
  expect(await charged(payer)).toBe(0n);
  expect((await statusOf(service, await watchOf(signature))).status).toBe(404);
}

/**
 * The watch of `signature` exists once, active, charged once: its `watch.created` reached the
 * receiver, signed with the watch's secret, exactly once by `webhook-id`, and its delivery is
 * recorded; `served` (when the 201 came) is that watch.
 */
async function expectBoughtOnce(
  service: SelfSettlingService,
  payer: PrivateKeyAccount,
  request: PaidRequest,
  signature: string,
  served?: PaidAnswer,
) {
  const watch = await watchOf(signature);
  if (served) {
    expect(served.status).toBe(201);
    expect(served.receipt).not.toBeNull();
    expect(served.body).toMatchObject({ watch_id: watch.id, token: watch.token, status: 'active' });
  }
  const created = (delivery: ReceivedWebhook) =>
    eventOf(delivery).watch_id === watch.id && eventOf(delivery).type === 'watch.created';
  await receiver.until((received) => received.some(created));
  const state = await statusOf(service, watch);
  expect(state.status).toBe(200);
  expect(state.body.status).toBe('active');
  const events = (state.body.events ?? []).filter((event) => event.type === 'watch.created');
  expect(events).toHaveLength(1);
  const deliveries = receiver.received.filter((delivery) => delivery.id === events[0]?.id);
  expect(deliveries).toHaveLength(1);
  expect(
    receiver.verify(deliveries[0] as ReceivedWebhook, await secrets.webhookSecret(watch.id)),
  ).toMatchObject({
    type: 'watch.created',
    watch_id: watch.id,
  });
  expect(await charged(payer)).toBe(PRICE);
  // One signature buys one watch: a further copy gets the same watch's 201 and charges nothing more.
  const again = await answerOf(service, signature, request);
  expect(again).toMatchObject({ status: 201, body: { watch_id: watch.id, token: watch.token } });
  expect(await charged(payer)).toBe(PRICE);
}

// The three groups run side by side (the no-retry case mostly waits for its watch to become old
// enough to judge); the cases of a group one after the other.
describe.concurrent('buying a watch on a fleet whose instance is killed mid-call', () => {
  let fleet: Fleet;
  let survivor: SelfSettlingService;
  beforeAll(async () => {
    fleet = {
      settlement,
      settlerPrivateKey: generatePrivateKey(),
      env: { REDIS_URL: redis.url.href, PUBLIC_BASE_URL: 'https://checks.example.test', ...WATCH_ENV },
    };
    survivor = await settlement.startService(fleet);
  }, 120_000);

  it.sequential(
    'after its settlement reached the chain: the retry on another instance gets the same watch, active, charged once',
    async () => {
      const payer = await settlement.newPayer(FUNDS);
      const request = buying('healthy-shop.com');
      const { signature } = await killAfterSend(fleet, payer, request, PRICE, FUNDS);
      // Paid, and the watch was opened before the settlement: it waits, pending, for its payer.
      expect((await statusOf(survivor, await watchOf(signature))).status).toBe(404);

      const served = await retryUntilServed(survivor, signature, request);
      expect(served.refusals.every((refusal) => refusal === '409 payment_in_flight')).toBe(true);
      await expectBoughtOnce(survivor, payer, request, signature, served);
      expect(leaksIn(survivor.process.output(), survivor.secrets)).toEqual([]);
    },
    180_000,
  );

  it.sequential(
    'before its signed settlement was sent: nothing charged until the retry, which buys the same watch once',
    async () => {
      const payer = await settlement.newPayer(FUNDS);
      const request = buying('healthy-shop.com');
      const { signature, abandoned } = await killBeforeSend(fleet, payer, request);
      await expectNothingBought(survivor, payer, signature);

      const served = await retryUntilServed(survivor, signature, request);
      await expectBoughtOnce(survivor, payer, request, signature, served);
      expect(await mined(fleet, abandoned)).toBe(false);
      await expectNoNonceGap(fleet);
    },
    180_000,
  );

  it.sequential(
    'during its first check: nothing charged or created until the retry, which buys the watch once',
    async () => {
      const payer = await settlement.newPayer(FUNDS);
      // Not checked before on this fleet: its CT answer is not shared yet, so the check asks crt.sh.
      const domain = 'renewal-due.net';
      const request = buying(domain);
      const { signature } = await killDuringCheck(fleet, payer, request, domain);
      await expectNothingBought(survivor, payer, signature);

      const served = await retryUntilServed(survivor, signature, request);
      await expectBoughtOnce(survivor, payer, request, signature, served);
      await expectNoNonceGap(fleet);
    },
    180_000,
  );
});

describe.concurrent(
  'one instance with its SQLite store, killed after its settlement reached the chain',
  () => {
    it.sequential(
      'restarted on the same files, the retry of the same request gets the same watch, active, charged once',
      async () => {
        const fleet: Fleet = {
          settlement,
          settlerPrivateKey: generatePrivateKey(),
          // The restarted process listens on another port: the public URL (what payments are signed for) stays.
          env: {
            WATCH_DB_PATH: join(mkdtempSync(join(dir, 'retry-')), 'watches.db'),
            PUBLIC_BASE_URL: 'https://checks.example.test',
            ...WATCH_ENV,
          },
        };
        const payer = await settlement.newPayer(FUNDS);
        const request = buying('healthy-shop.com');
        const { signature } = await killAfterSend(fleet, payer, request, PRICE, FUNDS);
        const restarted = await settlement.startService(fleet);
        // The settling record survived in the instance's payment records (src/sqlite/payment-records.ts).
        const served = await retryUntilServed(restarted, signature, request);
        await expectBoughtOnce(restarted, payer, request, signature, served);
        await restarted.close();
      },
      180_000,
    );

    it.sequential(
      'restarted on the same file, activates the paid watch from the chain without a retry: watch.created reaches the receiver',
      async () => {
        const fleet: Fleet = {
          settlement,
          settlerPrivateKey: generatePrivateKey(),
          // The restarted process listens on another port: the public URL (what payments are signed for) stays.
          env: {
            WATCH_DB_PATH: join(dir, 'watches.db'),
            PUBLIC_BASE_URL: 'https://checks.example.test',
            ...WATCH_ENV,
          },
        };
        const payer = await settlement.newPayer(FUNDS);
        const request = buying('healthy-shop.com');
        const { signature } = await killAfterSend(fleet, payer, request, PRICE, FUNDS);
        const restarted = await settlement.startService(fleet);
        // The restarted instance's first sweep sees the watch pending and wakes when it is older than
        // any paid call, then judges it from the chain.
        await expectBoughtOnce(restarted, payer, request, signature);
        expect(leaksIn(restarted.process.output(), restarted.secrets)).toEqual([]);
      },
      10 * (PAID_CALL_MAX_MS + SWEEP_EVERY_MS),
    );
  },
);
