/**
 * Several Node instances as an operator runs them behind a load balancer: two `npm start` processes
 * with one settler key, one `X402_PAY_TO`, one chain and one `REDIS_URL` (a real redis-server on
 * loopback), paid by the official `@x402/fetch` client on anvil. Concurrent payers are all served
 * and charged once each with no account nonce used twice; one signature sent to every instance runs
 * its check once; a result lost on one instance is claimed on the other; Redis going away mid-load
 * turns paid calls into 503s without ever charging for nothing, and the service heals when it returns.
 */
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPublicClient, createTestClient, createWalletClient, http, publicActions } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseChainAt } from '../../src/payments/chain/base-chain.ts';
import { FOREIGN_PENDING_WARNING } from '../../src/payments/facilitator/foreign-pending.ts';
import { BASE_USDC_ADDRESS, TEST_USDC_ABI } from '../../src/payments/chain/local-contracts.ts';
import { payFor } from '../world/paying-clients.ts';
import { clientFor } from '../world/payer-client.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import { type ServiceProcess, startServiceProcess } from '../world/service-process.ts';
import { writeCaFile } from '../world/test-ca.ts';
import {
  type SelfSettlingService,
  type SettlementWorld,
  startSettlementWorld,
} from '../world/self-settling-service.ts';
import { FUNDS, leaksIn, OPERATION, PRICE } from './charged-iff-delivered.ts';
import { waitFor } from '../support/wait-for.ts';

/** A paid cert check: a 12 s check budget at most, plus a settlement on a chain that mines at once. */
const PAID_CALL_BOUND_MS = 20_000;
/** Log lines of a settlement that lost a nonce race (what two instances without a shared store log). */
const NONCE_TROUBLE = /nonce too low|replacement transaction|already known|settlement unavailable/i;

let settlement: SettlementWorld;
let redis: RedisServer;
let services: SelfSettlingService[];
const settlerPrivateKey = generatePrivateKey();
const settler = privateKeyToAccount(settlerPrivateKey).address;

beforeAll(async () => {
  [settlement, redis] = await Promise.all([startSettlementWorld(), startRedisServer()]);
  // One public origin, as behind a load balancer: an authorization signed for it is good on every instance.
  const env = { REDIS_URL: redis.url.href, PUBLIC_BASE_URL: 'https://checks.example.test' };
  services = await Promise.all([0, 1].map(() => settlement.startService({ settlerPrivateKey, env })));
}, 120_000);
afterAll(async () => {
  await settlement?.close();
  await redis?.close();
});

const output = () => services.map((service) => service.process.output()).join('\n');
const nonceOf = (blockTag: 'latest' | 'pending') =>
  createWalletClient({
    chain: baseChainAt(settlement.chain.rpcUrl),
    transport: http(settlement.chain.rpcUrl.href),
  })
    .extend(publicActions)
    .getTransactionCount({ address: settler, blockTag });

/** The challenge of `domain` from `service`, and one signed authorization for it as a header value. */
async function signedPayment(service: SelfSettlingService, payer: PrivateKeyAccount, domain: string) {
  const url = new URL(`${OPERATION.route}?domain=${domain}`, service.process.url);
  const unpaid = await fetch(url);
  await unpaid.arrayBuffer();
  const challenge = decodePaymentRequiredHeader(unpaid.headers.get('payment-required') ?? '');
  return encodePaymentSignatureHeader(await clientFor(payer).createPaymentPayload(challenge));
}

async function paidGet(
  service: SelfSettlingService,
  domain: string,
  signature: string,
  signal?: AbortSignal,
) {
  const res = await fetch(new URL(`${OPERATION.route}?domain=${domain}`, service.process.url), {
    headers: { 'payment-signature': signature },
    ...(signal ? { signal } : {}),
  });
  const body = (await res.json().catch(() => null)) as { domain?: string; code?: string } | null;
  return { status: res.status, body, retryAfter: res.headers.get('retry-after') };
}

/** Requests crt.sh has had for `domain`. */
const ctRequests = (domain: string) =>
  settlement.world.crtsh.requests.filter((r) => r.url.href.includes(domain)).length;

/** One paid call by a new payer with the official client; its answer and what it cost. */
async function payOnce(service: SelfSettlingService, domain: string = OPERATION.domain) {
  const payer = await settlement.newPayer(FUNDS);
  const { answer } = await payFor({
    transport: 'http',
    baseUrl: service.process.url,
    ...OPERATION,
    domain,
    payer,
  });
  return { answer, charged: await charged(payer) };
}

async function charged(payer: PrivateKeyAccount): Promise<bigint> {
  return FUNDS - (await settlement.chain.balanceOf(payer.address));
}

async function readyz(
  service: SelfSettlingService,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(new URL('/readyz', service.process.url));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('two instances, one settler wallet, one Redis', () => {
  it('serves concurrent payers on both instances: every call 200 in time, charged once, no nonce used twice', async () => {
    const before = await nonceOf('latest');
    const payers = await Promise.all(Array.from({ length: 8 }, () => settlement.newPayer(FUNDS)));
    const calls = payers.flatMap((payer, p) =>
      [0, 1, 2, 3].map(async (i) => {
        const started = performance.now();
        const { answer } = await payFor({
          transport: 'http',
          baseUrl: services[(p + i) % 2]!.process.url,
          ...OPERATION,
          payer,
        });
        return { delivered: answer.delivered, status: answer.status, ms: performance.now() - started };
      }),
    );
    const answers = await Promise.all(calls);
    expect(answers.filter((answer) => !answer.delivered)).toEqual([]);
    expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(PAID_CALL_BOUND_MS);
    for (const payer of payers) expect(await charged(payer)).toBe(4n * PRICE);
    // 32 settlements, 32 consecutive nonces, nothing left pending.
    expect((await nonceOf('latest')) - before).toBe(32);
    expect(await nonceOf('pending')).toBe(await nonceOf('latest'));
    expect(output()).not.toMatch(NONCE_TROUBLE);
    expect(leaksIn(output(), services[0]!.secrets)).toEqual([]);
  }, 120_000);

  it('runs one signature sent to every instance at once a single time: one 200, the rest 409', async () => {
    const domain = 'renewal-due.net';
    const payer = await settlement.newPayer(FUNDS);
    const signature = await signedPayment(services[0]!, payer, domain);
    const ctBefore = ctRequests(domain);
    // A slow CT log keeps the first copy inside its check while the others arrive.
    settlement.world.crtsh.delayMs = 1_000;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => paidGet(services[i % 2]!, domain, signature)),
    ).finally(() => (settlement.world.crtsh.delayMs = 0));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(answers.filter((answer) => answer.status === 409).map((answer) => answer.body?.code)).toEqual(
      Array(5).fill('payment_in_flight'),
    );
    expect(ctRequests(domain) - ctBefore).toBe(1);
    expect(await charged(payer)).toBe(PRICE);
  }, 60_000);

  it('lets a result paid for on one instance but lost on the way be claimed once on the other', async () => {
    const [a, b] = services as [SelfSettlingService, SelfSettlingService];
    const payer = await settlement.newPayer(FUNDS);
    const signature = await signedPayment(a, payer, OPERATION.domain);
    const logFrom = a.process.output().length;
    a.proxy.reset();
    a.proxy.rule('eth_getTransactionReceipt', { holdRequest: 'until-released' });
    const client = new AbortController();
    const first = paidGet(a, OPERATION.domain, signature, client.signal).catch((error: unknown) => error);
    await a.proxy.until('eth_getTransactionReceipt');
    client.abort();
    expect(await first).toBeInstanceOf(Error);
    a.proxy.reset();
    await waitFor(() => a.process.output().slice(logFrom).includes('paid result not delivered'), {
      what: "instance a's log of the undelivered result",
      everyMs: 50,
    });
    expect(await charged(payer)).toBe(PRICE);

    const claimed = await paidGet(b, OPERATION.domain, signature);
    expect(claimed.status).toBe(200);
    expect(claimed.body?.domain).toBe(OPERATION.domain);
    // The log line may reach the pipe just after the answer.
    await waitFor(() => b.process.output().includes('paid result redelivered'), {
      what: "instance b's log of the redelivery",
      everyMs: 20,
    });
    // Claimed once: a third copy is the facilitator's to refuse (the authorization is used), on either instance.
    const again = await paidGet(a, OPERATION.domain, signature);
    expect(again.status).toBe(402);
    expect(await charged(payer)).toBe(PRICE);
  }, 60_000);

  it("reuses another instance's CT answer: the second instance checking a domain does not ask crt.sh", async () => {
    const domain = 'lapsing-bakery.com';
    for (const service of services) {
      expect((await payOnce(service, domain)).answer.delivered).toBe(true);
      expect(ctRequests(domain)).toBe(1);
    }
  }, 60_000);

  it('answers paid calls 503 with Retry-After while Redis is down, keeps free routes, and heals when it returns', async () => {
    const payers = await Promise.all(Array.from({ length: 12 }, () => settlement.newPayer(FUNDS)));
    const call = (payer: PrivateKeyAccount, i: number) =>
      payFor({ transport: 'http', baseUrl: services[i % 2]!.process.url, ...OPERATION, payer }).then(
        ({ answer }) => answer,
      );
    // Mid-load: half the calls start, Redis dies under them, the other half arrive during the outage.
    // Redis dies once the first ones hold their locks and have verified (one eth_call each).
    for (const service of services) service.proxy.reset();
    const verified = () => services.reduce((sum, service) => sum + service.proxy.calls('eth_call').length, 0);
    const early = payers.slice(0, 6).map(call);
    await waitFor(() => verified() >= 6, { what: 'six verifications', everyMs: 5 });
    await redis.stop();
    const late = payers.slice(6).map((payer, i) => call(payer, i));
    const answers = await Promise.all([...early, ...late]);
    for (const [i, answer] of answers.entries()) {
      const delta = await charged(payers[i]!);
      expect(delta, `call ${i}: charged iff delivered`).toBe(answer.delivered ? PRICE : 0n);
      if (!answer.delivered) expect([answer.status, answer.code]).toEqual([503, 'payment_unavailable']);
    }
    for (const answer of answers.slice(6)) expect(answer.delivered).toBe(false);

    for (const service of services) {
      const paid = await paidGet(
        service,
        OPERATION.domain,
        await signedPayment(service, payers[0]!, OPERATION.domain),
      );
      expect([paid.status, paid.body?.code, paid.retryAfter !== null]).toEqual([
        503,
        'payment_unavailable',
        true,
      ]);
      expect((await fetch(new URL('/health', service.process.url))).status).toBe(200);
      expect((await fetch(new URL('/openapi.json', service.process.url))).status).toBe(200);
      // Every paid call is 503: so is /readyz, naming the store (free work goes on, /health stays 200).
      const ready = await readyz(service);
      expect(ready.body.shared_store).toBe('unreachable');
      expect(ready.body.causes).toEqual(['shared_store_unreachable']);
      expect(ready.status).toBe(503);
    }
    expect(services.every((service) => service.process.alive())).toBe(true);

    await redis.start();
    for (const service of services) {
      const deadline = performance.now() + 10_000;
      while ((await readyz(service)).body.shared_store !== 'reachable') {
        expect(performance.now()).toBeLessThan(deadline);
        await sleep(100);
      }
      const { answer, charged: cost } = await payOnce(service);
      expect(answer.delivered).toBe(true);
      expect(cost).toBe(PRICE);
    }
    expect(leaksIn(output(), services[0]!.secrets)).toEqual([]);
    expect(output()).not.toContain('redis://');
  }, 120_000);
});

describe('the free-work limit across instances', () => {
  it('gives a client one budget across the fleet, not one per instance', async () => {
    const env = { REDIS_URL: redis.url.href, RATE_LIMIT_BURST: '4', RATE_LIMIT_PER_MINUTE: '1' };
    const services = await Promise.all([0, 1, 2].map(() => settlement.startService({ env })));
    const [pair, fresh] = [services.slice(0, 2), services[2]!];
    let stopped = false;
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i += 1) {
        const res = await fetch(new URL('/v1/validate?domain=example.com', pair[i % 2]!.process.url));
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429, 429, 429]);
      // A bucket store out of reach refuses no free work: the instance that never refused this client
      // lets it through. The two that refused it go on refusing it until its next token is due,
      // without asking Redis (they would refuse with Redis too).
      await redis.stop();
      stopped = true;
      const validate = async (service: SelfSettlingService) => {
        const res = await fetch(new URL('/v1/validate?domain=example.com', service.process.url));
        await res.arrayBuffer();
        return res.status;
      };
      expect(await validate(fresh)).toBe(200);
      for (const service of pair) expect(await validate(service)).toBe(429);
    } finally {
      if (stopped) await redis.start();
      await Promise.all(services.map((service) => service.close()));
    }
  }, 60_000);
});

describe('development instances on their own embedded chains, one REDIS_URL', () => {
  it("keep each chain's settler nonces apart (the dev settler is the same address on every chain)", async () => {
    const ca = await writeCaFile(settlement.world.site.caPem);
    const env = { ...settlement.world.env, NODE_EXTRA_CA_CERTS: ca.path, REDIS_URL: redis.url.href };
    const pair = await Promise.all([0, 1].map(() => startServiceProcess(env)));
    try {
      const demoPayer = (process: ServiceProcess) =>
        privateKeyToAccount(/X402_PRIVATE_KEY=(0x[0-9a-f]{64})/.exec(process.output())![1] as `0x${string}`);
      const pay = (process: ServiceProcess) =>
        payFor({ transport: 'http', baseUrl: process.url, ...OPERATION, payer: demoPayer(process) });
      const second = pair[1]!;
      const secondChain = createPublicClient({
        transport: http(/RPC:\s+(\S+)/.exec(second.output())![1]),
      });
      const balance = () =>
        secondChain.readContract({
          address: BASE_USDC_ADDRESS,
          abi: TEST_USDC_ABI,
          functionName: 'balanceOf',
          args: [demoPayer(second).address],
        });
      // Three settlements on the first chain, then one on the second, whose settler has sent none.
      for (let i = 0; i < 3; i += 1) expect((await pay(pair[0]!)).answer.delivered).toBe(true);
      const before = await balance();
      const started = performance.now();
      expect((await pay(second)).answer.delivered).toBe(true);
      expect(performance.now() - started).toBeLessThan(PAID_CALL_BOUND_MS);
      // Charged once on its own chain: nothing signed for the first chain was sent to the second.
      expect(before - (await balance())).toBe(PRICE);
    } finally {
      await Promise.all(pair.map((process) => process.stop()));
      await ca.remove();
    }
  }, 90_000);
});

describe('an instance without REDIS_URL', () => {
  it('warns once at start when its settler wallet has pending transactions it did not send', async () => {
    const anvil = createTestClient({
      mode: 'anvil',
      chain: baseChainAt(settlement.chain.rpcUrl),
      transport: http(settlement.chain.rpcUrl.href),
    });
    const busyKey = generatePrivateKey();
    const busy = privateKeyToAccount(busyKey);
    await anvil.setBalance({ address: busy.address, value: 10n ** 20n });
    await anvil.setAutomine(false);
    try {
      // Another program (or instance) using the same key has a transaction waiting in the mempool.
      await createWalletClient({
        account: busy,
        chain: baseChainAt(settlement.chain.rpcUrl),
        transport: http(settlement.chain.rpcUrl.href),
      }).sendTransaction({ to: busy.address, value: 0n });
      const [warned, quiet] = await Promise.all([
        settlement.startService({ settlerPrivateKey: busyKey }),
        settlement.startService(),
      ]);
      const warningsOf = async (service: SelfSettlingService) => {
        const deadline = performance.now() + 5_000;
        while (!service.process.output().includes(FOREIGN_PENDING_WARNING) && performance.now() < deadline)
          await sleep(50);
        return service.process.output().split(FOREIGN_PENDING_WARNING).length - 1;
      };
      expect(await warningsOf(warned)).toBe(1);
      expect(await warningsOf(quiet)).toBe(0);
      await Promise.all([warned.close(), quiet.close()]);
    } finally {
      await anvil.setAutomine(true);
    }
  }, 60_000);
});
