/**
 * An instance of a fleet killed (`kill -9`) in the middle of a paid call: two `npm start` processes
 * with one settler key and one `REDIS_URL`, paid by the official x402 client on anvil. Whatever the
 * moment of the kill, either the payer is not charged, or the same request with the same signature
 * sent to the other instance gets the result within seconds, charged once. A transaction signed by
 * the dead instance is never sent by another: its nonce is filled by a transfer that charges nobody.
 */
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPublicClient, http, keccak256 } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseChainAt } from '../../src/payments/base-chain.ts';
import { LEASE_MS } from '../../src/payments/lock-lease.ts';
import { evictionRefusal } from '../../src/redis/connection.ts';
import { x402ClientFor } from '../world/paying-clients.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';
import { startServiceProcess } from '../world/service-process.ts';
import {
  type SelfSettlingService,
  type SettlementWorld,
  startSettlementWorld,
} from '../world/self-settling-service.ts';
import { FUNDS, OPERATION, PRICE } from './charged-iff-delivered.ts';

/**
 * A retry is answered 409 (the dead holder's lock) until its lease ends (`LEASE_MS` at most), then
 * served: tenfold margin on the machine's load, still well below the 110 s a dead holder's lock used
 * to last.
 */
const SERVED_WITHIN_MS = 10 * LEASE_MS;
const RETRY_EVERY_MS = 250;

let settlement: SettlementWorld;
let redis: RedisServer;
let survivor: SelfSettlingService;
const settlerPrivateKey = generatePrivateKey();
const settler = privateKeyToAccount(settlerPrivateKey).address;
let env: Record<string, string>;

beforeAll(async () => {
  [settlement, redis] = await Promise.all([startSettlementWorld(), startRedisServer()]);
  env = { REDIS_URL: redis.url.href, PUBLIC_BASE_URL: 'https://checks.example.test' };
  survivor = await settlement.startService({ settlerPrivateKey, env });
}, 120_000);
afterAll(async () => {
  await settlement?.close();
  await redis?.close();
});

const chain = () =>
  createPublicClient({
    chain: baseChainAt(settlement.chain.rpcUrl),
    transport: http(settlement.chain.rpcUrl.href),
  });
const charged = async (payer: PrivateKeyAccount) => FUNDS - (await settlement.chain.balanceOf(payer.address));

const urlOf = (service: SelfSettlingService, domain: string) =>
  new URL(`${OPERATION.route}?domain=${domain}`, service.process.url);

async function signedPayment(service: SelfSettlingService, payer: PrivateKeyAccount, domain: string) {
  const url = urlOf(service, domain);
  const unpaid = await fetch(url);
  await unpaid.arrayBuffer();
  const challenge = decodePaymentRequiredHeader(unpaid.headers.get('payment-required') ?? '');
  return encodePaymentSignatureHeader(await x402ClientFor(payer).createPaymentPayload(challenge));
}

async function paidGet(service: SelfSettlingService, signature: string, domain: string = OPERATION.domain) {
  const res = await fetch(urlOf(service, domain), {
    headers: { 'payment-signature': signature },
  });
  const body = (await res.json().catch(() => null)) as { domain?: string; code?: string } | null;
  return { status: res.status, body, receipt: res.headers.get('payment-response') };
}

/** The payer's retry: the same request and signature, again while it is answered 409 or 503. */
async function retryUntilServed(service: SelfSettlingService, signature: string, domain: string) {
  const started = performance.now();
  const refusals: string[] = [];
  for (;;) {
    const answer = await paidGet(service, signature, domain);
    if ((answer.status !== 409 && answer.status !== 503) || performance.now() - started > SERVED_WITHIN_MS)
      return { ...answer, refusals, ms: performance.now() - started };
    refusals.push(`${answer.status} ${answer.body?.code}`);
    await sleep(RETRY_EVERY_MS);
  }
}

/** Starts the instance to kill, with one paid call of `payer` on it; the call's answer never comes. */
async function doomedCall(payer: PrivateKeyAccount, domain: string) {
  const doomed = await settlement.startService({ settlerPrivateKey, env });
  const signature = await signedPayment(doomed, payer, domain);
  void paidGet(doomed, signature, domain).catch(() => {});
  return { doomed, signature };
}

async function kill(doomed: SelfSettlingService) {
  doomed.process.signal('SIGKILL');
  expect(await doomed.process.exited).toBeNull();
  await doomed.close();
}

async function expectNoNonceGap() {
  const client = chain();
  const [latest, pending] = await Promise.all([
    client.getTransactionCount({ address: settler, blockTag: 'latest' }),
    client.getTransactionCount({ address: settler, blockTag: 'pending' }),
  ]);
  expect(pending).toBe(latest);
}

describe('an instance killed in the middle of a paid call', () => {
  it('after its settlement reached the chain: the retry on another instance gets the result, charged once', async () => {
    const payer = await settlement.newPayer(FUNDS);
    const domain = OPERATION.domain;
    const { doomed, signature } = await doomedCall(payer, domain);
    doomed.proxy.rule('eth_sendRawTransaction', { holdResponse: 'until-released' });
    await doomed.proxy.until('eth_sendRawTransaction', (call) => call.forwarded, 30_000);
    while ((await charged(payer)) !== PRICE) await sleep(50);
    await kill(doomed);

    const served = await retryUntilServed(survivor, signature, domain);
    expect(served.status, served.refusals.join(', ')).toBe(200);
    expect(served.body?.domain).toBe(domain);
    expect(served.receipt).not.toBeNull();
    expect(served.refusals.every((refusal) => refusal === '409 payment_in_flight')).toBe(true);
    expect(await charged(payer)).toBe(PRICE);
    // Delivered once: a further copy is refused by the facilitator (the authorization is used).
    expect((await paidGet(survivor, signature, domain)).status).toBe(402);
    expect(await charged(payer)).toBe(PRICE);
  }, 180_000);

  it('before its signed settlement was sent: that transaction is never sent, the retry is charged once and served', async () => {
    const payer = await settlement.newPayer(FUNDS);
    const domain = OPERATION.domain;
    const { doomed, signature } = await doomedCall(payer, domain);
    doomed.proxy.rule('eth_sendRawTransaction', { holdRequest: 'until-released', forward: false });
    const held = await doomed.proxy.until('eth_sendRawTransaction', () => true, 30_000);
    await kill(doomed);
    const abandoned = keccak256((held.params as [`0x${string}`])[0]);
    expect(await charged(payer)).toBe(0n);

    const served = await retryUntilServed(survivor, signature, domain);
    expect(served.status, served.refusals.join(', ')).toBe(200);
    expect(served.body?.domain).toBe(domain);
    expect(await charged(payer)).toBe(PRICE);
    // The dead instance's transaction can no longer be mined: its nonce went to a transfer of nothing.
    await expect(chain().getTransactionReceipt({ hash: abandoned })).rejects.toThrow(/could not be found/i);
    await expectNoNonceGap();
    expect(await charged(payer)).toBe(PRICE);
  }, 180_000);

  it('during its check: nothing is charged until the retry, which is served and charged once', async () => {
    const payer = await settlement.newPayer(FUNDS);
    // Not checked before on this fleet: its CT answer is not shared yet, so the check asks crt.sh.
    const domain = 'renewal-due.net';
    settlement.world.crtsh.delayMs = 5_000;
    try {
      const before = settlement.world.crtsh.requests.length;
      const { doomed, signature } = await doomedCall(payer, domain);
      while (settlement.world.crtsh.requests.length === before) await sleep(20);
      await kill(doomed);
      settlement.world.crtsh.delayMs = 0;
      expect(await charged(payer)).toBe(0n);

      const served = await retryUntilServed(survivor, signature, domain);
      expect(served.status, served.refusals.join(', ')).toBe(200);
      expect(served.body?.domain).toBe(domain);
      expect(await charged(payer)).toBe(PRICE);
      await expectNoNonceGap();
    } finally {
      settlement.world.crtsh.delayMs = 0;
    }
  }, 180_000);
});

describe('a Redis whose eviction policy could drop payment state', () => {
  it('is refused at start with one line naming the policy and the fix', async () => {
    await redis.client.config('SET', 'maxmemory-policy', 'volatile-lru');
    try {
      const started = await startServiceProcess({ REDIS_URL: redis.url.href }).then(
        async (service) => (await service.stop(), 'started'),
        (error: unknown) => String(error),
      );
      expect(started).toContain('(exit 1)');
      expect(started).toContain(evictionRefusal('volatile-lru'));
      expect(started).not.toContain(redis.url.href);
    } finally {
      await redis.client.config('SET', 'maxmemory-policy', 'noeviction');
    }
  }, 60_000);
});
