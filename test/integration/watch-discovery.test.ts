/**
 * The watch routes as x402scan's discovery and probe library (`@agentcash/discovery`) reads them
 * from a running service with payments: the purchase and the extension are found as paid, their
 * 402s (probed with a sample body, the extension with the watch's token) raise no warning, and the
 * auth-only 402 carries the challenge whole in its body as in its header.
 */
import { discoverOriginSchema, validatePaymentRequiredDetailed } from '@agentcash/discovery';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payingFetchFor } from '../world/payer-client.ts';
import { probeWarnings } from '../world/x402scan-probe.ts';
import { startWatchService, type WatchService } from '../world/watch-service.ts';

let service: WatchService;
let origin: string;

beforeAll(async () => {
  service = await startWatchService();
  origin = service.url.origin;
}, 60_000);
afterAll(async () => {
  await service?.close();
});

const PURCHASE = { domain: 'example.com', days: 30, webhook_url: 'https://hooks.example.net/h' };

describe('the watch routes read by x402scan’s discovery library', () => {
  it('finds the purchase and the extension as paid, priced pro rata up to $1', async () => {
    const discovery = await discoverOriginSchema({ target: origin });
    expect(discovery.found).toBe(true);
    if (!discovery.found) return;
    const byRoute = new Map(
      discovery.endpoints.map((endpoint) => [`${endpoint.method} ${endpoint.path}`, endpoint]),
    );
    expect(byRoute.get('POST /v1/watches')).toMatchObject({
      authMode: 'paid',
      pricingMode: 'dynamic',
      price: '0.003334-1 USD',
      protocols: ['x402'],
    });
    expect(byRoute.get('POST /v1/watches/{watch_id}/extend')).toMatchObject({
      authMode: 'apiKey+paid',
      pricingMode: 'dynamic',
      protocols: ['x402'],
    });
  });

  it('probes the purchase with a sample body: no warning', async () => {
    expect(await probeWarnings(new URL('/v1/watches', origin), PURCHASE)).toEqual([]);
  });

  it('probes the extension of a bought watch with its token: no warning', async () => {
    const payer = await service.newPayer(10_000_000n);
    const bought = await payingFetchFor(payer)(new URL('/v1/watches', origin), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ domain: 'example.com', days: 2 }),
    });
    const watch = (await bought.json()) as { watch_id: string; token: string };
    expect(bought.status).toBe(201);
    const warnings = await probeWarnings(
      new URL(`/v1/watches/${watch.watch_id}/extend`, origin),
      { days: 30 },
      { authorization: `Bearer ${watch.token}` },
    );
    expect(warnings).toEqual([]);
  });

  it('reads the auth-only 402 from its body as from its header: only the empty accepts it has by design', async () => {
    const res = await fetch(new URL('/v1/watches', origin));
    expect(res.status).toBe(402);
    const fromBody = validatePaymentRequiredDetailed(await res.json());
    const fromHeader = validatePaymentRequiredDetailed(
      decodePaymentRequiredHeader(res.headers.get('payment-required') ?? ''),
    );
    const codes = (issues: { code: string; severity: string }[]) =>
      issues.filter((issue) => issue.severity === 'error').map((issue) => issue.code);
    expect(codes(fromBody.issues)).toEqual(codes(fromHeader.issues));
    expect(codes(fromBody.issues)).toContain('X402_ACCEPTS_EMPTY');
    expect(codes(fromBody.issues)).not.toContain('X402_VERSION_MISSING');
  });
});
