/**
 * Three instances of the paid app in this process, one real redis-server, one settler key on the
 * local anvil chain behind a fault-injecting RPC relay, under the faults of issue 37: a Redis pause
 * under load, Redis restarted empty while sends travel slowly, a hung RPC after the send, and an
 * instance whose clock is minutes behind the chain (it moves the chain's time, so it runs last but
 * one) or ahead of it.
 * Balances and the settler's nonces are read on the chain.
 */
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { serve } from '@hono/node-server';
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { pino } from 'pino';
import { createPublicClient, createTestClient, http } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { baseChainAt } from '../../src/payments/chain/base-chain.ts';
import { type LocalChain, startLocalChain } from '../../src/payments/chain/local-chain.ts';
import { createInProcessFacilitator } from '../../src/payments/facilitator/facilitator.ts';
import { createPayments, type Payments } from '../../src/payments/payments.ts';
import { connectSharedStore, type SharedStore } from '../../src/redis/connection.ts';
import { sharedPaymentState } from '../../src/redis/shared-state.ts';
import { type CheckUpstream, startCheckUpstream, upstreamRunners } from '../world/check-upstream.ts';
import { authorizationOf, clientFor, resigned } from '../world/payer-client.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import { type RpcFaultProxy, startRpcFaultProxy } from '../world/rpc-fault-proxy.ts';

const logger = pino({ level: 'silent' });
const PRICE = 10_000n;
const FUNDS = 1_000_000n;
const PATH = '/v1/cert?domain=healthy-shop.com';
const FLEET_ORIGIN = 'https://checks.fleet.test';

interface Instance {
  url: URL;
  payments: Payments;
  store: SharedStore;
  close(): Promise<void>;
}

let chain: LocalChain;
let proxy: RpcFaultProxy;
let redis: RedisServer;
let upstream: CheckUpstream;

beforeAll(async () => {
  [chain, redis, upstream] = await Promise.all([startLocalChain(), startRedisServer(), startCheckUpstream()]);
  proxy = await startRpcFaultProxy(chain.rpcUrl);
});
afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
  await redis?.close();
  await chain?.stop();
});

/** One instance: its own connection to the shared Redis, the settler key, the chain through the relay. */
async function startInstance(options: { deadlineMs?: number } = {}): Promise<Instance> {
  let handle: (request: Request) => Response | Promise<Response> = () => new Response(null, { status: 503 });
  const server = serve({ fetch: (request) => handle(request), hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const loaded = loadConfig({ LOG_LEVEL: 'silent' });
  // One public origin for the fleet, as behind its load balancer: a payment signed for it is good on each.
  const config = { ...loaded, publicBaseUrl: FLEET_ORIGIN, x402: { ...loaded.x402, payTo: chain.payTo } };
  const store = connectSharedStore(redis.url, logger);
  const shared = sharedPaymentState(store, logger);
  const facilitator = createInProcessFacilitator({
    network: config.x402.network,
    rpcUrl: proxy.url,
    settlerPrivateKey: chain.settler.privateKey,
    receiptPollMs: 50,
    ...(shared.nonces ? { nonces: shared.nonces } : {}),
  });
  const payments = createPayments({
    config,
    logger,
    local: chain,
    facilitator,
    shared,
    ...(options.deadlineMs ? { settlement: { deadlineMs: options.deadlineMs } } : {}),
  });
  const app = createApp({ config, runners: upstreamRunners(upstream), logger, payments });
  handle = (request) => app.fetch(request);
  while (!store.reachable()) await sleep(10);
  return {
    url,
    payments,
    store,
    async close() {
      await new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      });
      await store.close();
    },
  };
}

async function newPayer(): Promise<PrivateKeyAccount> {
  const payer = privateKeyToAccount(generatePrivateKey());
  await chain.fund(payer.address, FUNDS);
  return payer;
}

async function challengeOf(instance: Instance): Promise<PaymentRequired> {
  const res = await fetch(new URL(PATH, instance.url));
  await res.arrayBuffer();
  return decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '');
}

interface Answer {
  status: number;
  receipt: { success: boolean; errorReason?: string } | null;
  endedAt: number;
}

async function pay(instance: Instance, header: string): Promise<Answer> {
  const res = await fetch(new URL(PATH, instance.url), { headers: { 'payment-signature': header } });
  await res.arrayBuffer();
  const response = res.headers.get('payment-response');
  return {
    status: res.status,
    receipt: response ? decodePaymentResponseHeader(response) : null,
    endedAt: performance.now(),
  };
}

const charged = async (payer: PrivateKeyAccount) => FUNDS - (await chain.balanceOf(payer.address));
const settlerNonces = async () => {
  const client = createPublicClient({ chain: baseChainAt(chain.rpcUrl), transport: http(chain.rpcUrl.href) });
  const address = chain.settler.address;
  const [latest, pending] = await Promise.all([
    client.getTransactionCount({ address, blockTag: 'latest' }),
    client.getTransactionCount({ address, blockTag: 'pending' }),
  ]);
  return { latest, pending };
};

describe('three instances, one settler wallet, one Redis', () => {
  let fleet: Instance[];
  beforeAll(async () => {
    fleet = await Promise.all([0, 1, 2].map(() => startInstance()));
  });
  afterAll(async () => {
    await Promise.all(fleet.map((instance) => instance.close()));
  });

  it('a 5 s Redis pause under load: charged iff delivered, no call long past the pause, no nonce gap left', async () => {
    proxy.reset();
    const payers = await Promise.all(Array.from({ length: 18 }, newPayer));
    const challenge = await challengeOf(fleet[0]!);
    const headers = await Promise.all(
      payers.map(async (payer) =>
        encodePaymentSignatureHeader(await clientFor(payer).createPaymentPayload(challenge)),
      ),
    );
    const pauseMs = 5_000;
    const calls = headers.map(async (header, i) => {
      // Spread over the pause and the seconds after it.
      await sleep(i * 450);
      return pay(fleet[i % 3]!, header);
    });
    await sleep(800);
    await redis.client.call('CLIENT', 'PAUSE', String(pauseMs), 'WRITE');
    const pauseEnd = performance.now() + pauseMs;
    const answers = await Promise.all(calls);
    for (const [i, answer] of answers.entries()) {
      const delivered = answer.status === 200;
      expect(await charged(payers[i]!), `call ${i}: charged iff delivered`).toBe(delivered ? PRICE : 0n);
      if (delivered) expect(answer.receipt?.success, `call ${i}: settled, not unconfirmed`).toBe(true);
      else expect(answer.status, `call ${i}`).toBe(503);
    }
    // Before: 12.2–14.3 s after such a pause, behind the 8 s lease of a nonce never sent; measured
    // now 2.1–2.3 s (the calls held by the pause all running at once), within the 3 s the issue
    // asks; threefold here for a loaded machine.
    const latest = Math.max(...answers.map((answer) => answer.endedAt));
    expect(latest - pauseEnd, 'the last call past the end of the pause').toBeLessThan(3_000 * 3);
    for (const instance of fleet) {
      while (!(await instance.payments.readiness()).ready) await sleep(50);
    }
    const nonces = await settlerNonces();
    expect(nonces.pending, 'no transaction left waiting behind a gap').toBe(nonces.latest);
  }, 120_000);

  it('Redis restarted empty while sends travel slowly: a nonce per settlement, charged iff delivered, none unconfirmed', async () => {
    proxy.reset();
    const payers = await Promise.all(Array.from({ length: 9 }, newPayer));
    const challenge = await challengeOf(fleet[0]!);
    const headers = await Promise.all(
      payers.map(async (payer) =>
        encodePaymentSignatureHeader(await clientFor(payer).createPaymentPayload(challenge)),
      ),
    );
    // Each send reaches the node 2.5 s late (inside the RPC client's 3 s timeout).
    proxy.rule('eth_sendRawTransaction', { holdRequest: 2_500 });
    const started = performance.now();
    const first = headers.slice(0, 3).map((header, i) => pay(fleet[i]!, header));
    await proxy.until('eth_sendRawTransaction', () => true, 30_000);
    await redis.stop();
    await redis.start();
    await redis.client.connect().catch(() => {});
    while (!fleet.every((instance) => instance.store.reachable())) await sleep(10);
    const later = headers.slice(3).map((header, i) => pay(fleet[i % 3]!, header));
    const answers = await Promise.all([...first, ...later]);
    proxy.reset();
    for (const [i, answer] of answers.entries()) {
      const delivered = answer.status === 200;
      expect(await charged(payers[i]!), `call ${i}: charged iff delivered`).toBe(delivered ? PRICE : 0n);
      // Before: the loser of a shared nonce answered 200 settlement_unconfirmed after ~51 s.
      if (delivered) expect(answer.receipt?.success, `call ${i}: settled, not unconfirmed`).toBe(true);
      else expect(answer.status, `call ${i}`).toBe(503);
      expect(answer.endedAt - started, `call ${i}: within the 50 s bound`).toBeLessThan(50_000);
    }
    expect(answers.slice(3).every((answer) => answer.status === 200)).toBe(true);
    const nonces = await settlerNonces();
    expect(nonces.pending).toBe(nonces.latest);
  }, 120_000);
});

describe('one instance with a short settlement deadline', () => {
  it('answers a settlement whose RPC hangs after the send by its deadline: 200 settlement_unconfirmed', async () => {
    const deadlineMs = 10_000;
    const instance = await startInstance({ deadlineMs });
    try {
      proxy.reset();
      const payer = await newPayer();
      const header = encodePaymentSignatureHeader(
        await clientFor(payer).createPaymentPayload(await challengeOf(instance)),
      );
      // The send reaches anvil (mined at once); its answer and every later call hang.
      proxy.rule('eth_sendRawTransaction', { holdResponse: 'until-released' });
      const answer = pay(instance, header);
      await proxy.until('eth_sendRawTransaction', () => true, 30_000);
      const sent = performance.now();
      proxy.rule('*', { holdRequest: 'until-released' });
      const result = await answer;
      proxy.reset();
      expect(result.status).toBe(200);
      expect(result.receipt).toMatchObject({ success: false, errorReason: 'settlement_unconfirmed' });
      expect(await charged(payer)).toBe(PRICE);
      // Before: a hung request was abandoned only at the RPC client's own timeout and retry (77.6 s
      // against the 50 s bound); now every request of the settlement ends at its deadline.
      expect(result.endedAt - sent).toBeLessThan(deadlineMs + 2_000);
    } finally {
      proxy.reset();
      await instance.close();
    }
  }, 60_000);
});

describe("an instance whose clock is two minutes off the chain's", () => {
  it("takes a good payment judged on the chain's time, and shows the skew in /readyz", async () => {
    // The chain runs 120 s ahead of this machine: as an instance whose own clock is 120 s behind.
    const test = createTestClient({
      chain: baseChainAt(chain.rpcUrl),
      mode: 'anvil',
      transport: http(chain.rpcUrl.href),
    });
    await test.increaseTime({ seconds: 120 });
    await test.mine({ blocks: 1 });
    const instance = await startInstance();
    try {
      proxy.reset();
      const payer = await newPayer();
      const payload = await clientFor(payer).createPaymentPayload(await challengeOf(instance));
      // The payer's clock is right: its window is the chain's.
      const chainNow = BigInt(Math.floor(Date.now() / 1000) + 120);
      const paid = await resigned(payer, payload, {
        ...authorizationOf(payload),
        validAfter: String(chainNow - 600n),
        validBefore: String(chainNow + 45n),
      });
      const ready = await instance.payments.readiness();
      expect(ready.ready).toBe(true);
      expect(ready.clockSkewSeconds).toBeLessThan(-100);
      // Before: 402 authorization_window_too_long, judged on this instance's own clock.
      const answer = await pay(instance, encodePaymentSignatureHeader(paid));
      expect(answer.status).toBe(200);
      expect(await charged(payer)).toBe(PRICE);
    } finally {
      await instance.close();
    }
  }, 60_000);

  it("ahead: takes a good payment judged on the chain's time, verified and settled", async () => {
    const client = createPublicClient({
      chain: baseChainAt(chain.rpcUrl),
      transport: http(chain.rpcUrl.href),
    });
    const chainNow = (await client.getBlock({ blockTag: 'pending' })).timestamp;
    // This process's clock (the instance's) runs 120 s ahead of the chain's; the chain cannot go back.
    const aheadMs = Number(chainNow) * 1000 + 120_000 - Date.now();
    const realNow = Date.now.bind(Date);
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + aheadMs);
    const instance = await startInstance();
    try {
      proxy.reset();
      const payer = await newPayer();
      const payload = await clientFor(payer).createPaymentPayload(await challengeOf(instance));
      // The payer's clock is the chain's: a window of 45 s from its now, over by ours.
      const paid = await resigned(payer, payload, {
        ...authorizationOf(payload),
        validAfter: String(chainNow - 600n),
        validBefore: String(chainNow + 45n),
      });
      const ready = await instance.payments.readiness();
      expect(ready).toMatchObject({ ready: true, causes: [] });
      expect(ready.clockSkewSeconds).toBeGreaterThan(100);
      // Before: 503 payment_unavailable, the payment SDK judging the window on this clock.
      const answer = await pay(instance, encodePaymentSignatureHeader(paid));
      expect(answer).toMatchObject({ status: 200, receipt: { success: true } });
      expect(await charged(payer)).toBe(PRICE);
      // The same authorization again: the chain shows it used, and nobody pays twice.
      expect((await pay(instance, encodePaymentSignatureHeader(paid))).status).toBe(402);
      expect(await charged(payer)).toBe(PRICE);
    } finally {
      clock.mockRestore();
      await instance.close();
    }
  }, 60_000);
});
