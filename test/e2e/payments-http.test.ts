/**
 * Paid HTTP routes end to end on a local chain with the official `@x402/fetch` client: charges read
 * from the chain, the 402 challenge, 400 and 502 never charged, one signature one run, 20 settles.
 */
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paidOperations, usdToAtomic } from '../../src/catalog.ts';
import { MAX_TIMEOUT_SECONDS } from '../../src/payments/exact-authorization.ts';
import { type PaidService, startPaidService } from '../world/paid-service.ts';

let service: PaidService;
const FUNDS = 1_000_000n; // 1 USDC, in atomic units

beforeAll(async () => {
  service = await startPaidService();
});
afterAll(async () => {
  await service?.close();
});

function balances(...addresses: `0x${string}`[]): Promise<bigint[]> {
  return Promise.all(addresses.map((address) => service.chain.balanceOf(address)));
}

describe('paid routes on the local chain', () => {
  it.each(paidOperations.map((op) => [op.route, op] as const))(
    '%s: 200, receipt, payer −price, payTo +price',
    async (route, op) => {
      const payer = await service.newPayer(FUNDS);
      const [payTo0] = await balances(service.chain.payTo);
      const runs0 = service.runs();
      const res = await service.payingFetch(payer)(new URL(`${route}?domain=example.com`, service.url));
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ domain: 'example.com' });
      const receipt = decodePaymentResponseHeader(res.headers.get('payment-response') ?? '');
      expect(receipt).toMatchObject({ success: true, network: 'eip155:8453' });
      expect(receipt.payer?.toLowerCase()).toBe(payer.address.toLowerCase());
      expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      const price = BigInt(usdToAtomic(op.priceUsd));
      expect(price).toBe(op.id === 'v1_site_health' ? 30_000n : 10_000n);
      expect(await balances(payer.address, service.chain.payTo)).toEqual([
        FUNDS - price,
        (payTo0 ?? 0n) + price,
      ]);
      expect(service.runs()).toBe(runs0 + 1);
    },
  );

  it('refuses an invalid domain with 400 before payment: no challenge, nothing charged or run', async () => {
    const payer = await service.newPayer(FUNDS);
    const [payTo0] = await balances(service.chain.payTo);
    const runs0 = service.runs();
    const res = await service.payingFetch(payer)(new URL('/v1/cert?domain=exa_mple..com', service.url));
    expect(res.status).toBe(400);
    expect(res.headers.get('payment-required')).toBeNull();
    expect(await balances(payer.address, service.chain.payTo)).toEqual([FUNDS, payTo0]);
    expect(service.runs()).toBe(runs0);
  });

  it('challenges an unpaid call: x402Version 2 and one accepts entry with the route price', async () => {
    const res = await fetch(new URL('/v1/expiry?domain=example.com', service.url));
    expect(res.status).toBe(402);
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '');
    expect(required.x402Version).toBe(2);
    expect(required.accepts).toEqual([
      {
        scheme: 'exact',
        network: 'eip155:8453',
        amount: '10000',
        asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        payTo: service.chain.payTo,
        maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
        extra: { name: 'USD Coin', version: '2' },
      },
    ]);
    // The requested URL with its own query: a paymentless GET of it answers this same 402.
    expect(required.resource.url).toBe(`${service.url.origin}/v1/expiry?domain=example.com`);
  });

  it('settles nothing for a client that left during the check: balances unchanged', async () => {
    const payer = await service.newPayer(FUNDS);
    const [payTo0] = await balances(service.chain.payTo);
    const runs0 = service.runs();
    service.upstream.delayMs = 400;
    const client = new AbortController();
    try {
      const pending = service
        .payingFetch(payer)(new URL('/v1/cert?domain=example.com', service.url), { signal: client.signal })
        .catch((error: unknown) => error);
      await vi.waitFor(() => expect(service.runs()).toBe(runs0 + 1), { timeout: 5_000, interval: 10 });
      client.abort();
      expect(await pending).toBeInstanceOf(Error);
      // The check finishes after the client left; the service must not settle it.
      await service.idle();
    } finally {
      service.upstream.delayMs = 0;
    }
    expect(await balances(payer.address, service.chain.payTo)).toEqual([FUNDS, payTo0]);
  });

  it('never settles an upstream failure: 502, balances unchanged', async () => {
    const payer = await service.newPayer(FUNDS);
    const [payTo0] = await balances(service.chain.payTo);
    service.upstream.failing = true;
    try {
      const res = await service.payingFetch(payer)(new URL('/v1/dns?domain=example.com', service.url));
      expect(res.status).toBe(502);
      expect(res.headers.get('payment-response')).toBeNull();
      expect(await res.json()).toMatchObject({ code: 'upstream_failed' });
    } finally {
      service.upstream.failing = false;
    }
    expect(await balances(payer.address, service.chain.payTo)).toEqual([FUNDS, payTo0]);
  });

  it('runs one signature once: 10 concurrent copies → one 200, the check ran once, one charge', async () => {
    const payer = await service.newPayer(FUNDS);
    const [payTo0] = await balances(service.chain.payTo);
    const path = '/v1/cert?domain=example.com';
    const header = encodePaymentSignatureHeader(await service.sign(payer, await service.challenge(path)));
    const runs0 = service.runs();
    service.upstream.delayMs = 100;
    let statuses: number[];
    try {
      const responses = await Promise.all(
        Array.from({ length: 10 }, () =>
          fetch(new URL(path, service.url), { headers: { 'payment-signature': header } }),
        ),
      );
      statuses = responses.map((r) => r.status);
      await Promise.all(responses.map((r) => r.arrayBuffer()));
    } finally {
      service.upstream.delayMs = 0;
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    expect(service.runs()).toBe(runs0 + 1);
    expect(await balances(payer.address, service.chain.payTo)).toEqual([
      FUNDS - 10_000n,
      (payTo0 ?? 0n) + 10_000n,
    ]);
  });

  it('settles 20 concurrent calls with distinct signatures', async () => {
    const payer = await service.newPayer(FUNDS);
    const [payTo0] = await balances(service.chain.payTo);
    const path = '/v1/dns?domain=example.com';
    const challenge = await service.challenge(path);
    const headers = await Promise.all(
      Array.from({ length: 20 }, async () =>
        encodePaymentSignatureHeader(await service.sign(payer, challenge)),
      ),
    );
    const started = performance.now();
    const responses = await Promise.all(
      headers.map((header) =>
        fetch(new URL(path, service.url), { headers: { 'payment-signature': header } }),
      ),
    );
    const elapsedMs = performance.now() - started;
    const receipts = responses.map((r) =>
      decodePaymentResponseHeader(r.headers.get('payment-response') ?? ''),
    );
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(receipts.map((r) => r.transaction)).size).toBe(20);
    expect(await balances(payer.address, service.chain.payTo)).toEqual([
      FUNDS - 20n * 10_000n,
      (payTo0 ?? 0n) + 20n * 10_000n,
    ]);
    expect(elapsedMs).toBeLessThan(20_000);
  });
});
