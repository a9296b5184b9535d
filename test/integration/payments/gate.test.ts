/**
 * The payment gate against a loopback fake facilitator (real HTTPFacilitatorClient) and a counting
 * upstream: what reaches the facilitator and the upstream, in which order, for each kind of request.
 */
import { x402Client } from '@x402/core/client';
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { type DiscoveryExtension, validateDiscoveryExtension } from '@x402/extensions/bazaar';
import type { Hono } from 'hono';
import { pino } from 'pino';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createApp } from '../../../src/app.ts';
import { MAX_PAID_QUERY } from '../../../src/http/payment-gate.ts';
import { createPayments } from '../../../src/payments/payments.ts';
import { type CheckUpstream, startCheckUpstream, upstreamRunners } from '../../world/check-upstream.ts';
import { FAKE_TX_HASH, type FakeFacilitator, startFakeFacilitator } from '../../world/facilitator.ts';

const NETWORK = 'eip155:8453';
const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const BASE = 'https://checks.example';

let events: string[];
let facilitator: FakeFacilitator;
let upstream: CheckUpstream;
const payer = x402Client.fromConfig({
  schemes: [{ network: NETWORK, client: new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())) }],
});

function buildApp(): Hono {
  const config = loadConfig({
    X402_FACILITATOR_URL: facilitator.url.href,
    X402_PAY_TO: PAY_TO,
    PUBLIC_BASE_URL: BASE,
  });
  const logger = pino({ level: 'silent' });
  const payments = createPayments({ config, logger });
  return createApp({ config, runners: upstreamRunners(upstream), logger, payments }) as unknown as Hono;
}

async function challenge(app: Hono, path: string): Promise<PaymentRequired> {
  const res = await app.request(path);
  expect(res.status).toBe(402);
  return decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '');
}

async function signFor(app: Hono, path: string): Promise<string> {
  const payload: PaymentPayload = await payer.createPaymentPayload(await challenge(app, path));
  return encodePaymentSignatureHeader(payload);
}

const paths = (name: FakeFacilitator['calls'][number]['path']) =>
  facilitator.calls.filter((c) => c.path === name);

beforeAll(async () => {
  events = [];
  facilitator = await startFakeFacilitator(NETWORK, events);
  upstream = await startCheckUpstream(events);
});
afterAll(async () => {
  await facilitator.close();
  await upstream.close();
});
beforeEach(() => {
  events.length = 0;
  facilitator.calls.length = 0;
  facilitator.verifyAnswer = null;
  facilitator.verifyStatus = 200;
  facilitator.settleAnswer = null;
  facilitator.supportedFailStatus = null;
  upstream.failing = false;
  upstream.delayMs = 0;
});

describe('payment gate', () => {
  it('answers an unpaid call 402 with one v2 accepts entry and problem JSON, without running the check', async () => {
    const app = buildApp();
    const res = await app.request('/v1/site-health?domain=example.com');
    expect(res.status).toBe(402);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as PaymentRequired;
    expect(body).toMatchObject({ status: 402, code: 'payment_required', title: 'Payment required' });
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '');
    // The header keeps what a client signs from and the bazaar's input; the body the challenge whole.
    expect(body).toMatchObject({ x402Version: 2, resource: required.resource, accepts: required.accepts });
    expect(body.extensions?.bazaar).toMatchObject({
      info: { output: { example: { domain: 'example.com' } } },
    });
    expect(required.extensions?.bazaar).not.toHaveProperty('info.output');
    expect(body.extensions?.['payment-identifier']).toEqual(required.extensions?.['payment-identifier']);
    expect(required.x402Version).toBe(2);
    expect(required.resource.url).toBe(`${BASE}/v1/site-health?domain=example.com`);
    expect(required.accepts).toHaveLength(1);
    expect(required.accepts[0]).toMatchObject({ amount: '30000', payTo: PAY_TO, network: NETWORK });
    expect(required.extensions?.bazaar).toMatchObject({ info: { input: { type: 'http', method: 'GET' } } });
    // What a facilitator checks before cataloguing the route (bazaar spec: info validates against schema).
    expect(validateDiscoveryExtension(required.extensions?.bazaar as DiscoveryExtension)).toEqual({
      valid: true,
    });
    expect(events.filter((e) => e !== 'facilitator:/supported')).toEqual([]);
  });

  it("names each request's own query in the 402, whichever queries came before (the kept headers)", async () => {
    const app = buildApp();
    // The longest query a paid route takes (MAX_PAID_QUERY characters).
    const long = `domain=example.com&pad=${'x'.repeat(MAX_PAID_QUERY - 23)}`;
    const queries = [
      ...Array.from({ length: 300 }, (_, i) => `domain=d${i}.example.com`),
      'domain=example.com',
      long,
      'domain=%C3%A9xample.com&x=%22%3Cscript%3E',
      '',
      'domain=d0.example.com',
      long,
    ];
    const seen = new Map<string, string>();
    for (const query of queries) {
      for (const path of ['/v1/cert', '/v1/site-health']) {
        const res = await app.request(query ? `${path}?${query}` : path);
        if (!query) {
          expect(res.status).toBe(400);
          continue;
        }
        expect(res.status, `${path}?${query}`).toBe(402);
        const header = res.headers.get('payment-required') ?? '';
        expect(decodePaymentRequiredHeader(header).resource.url).toBe(`${BASE}${path}?${query}`);
        // The same request answers the same bytes, kept or encoded again.
        expect(seen.get(`${path}?${query}`) ?? header).toBe(header);
        seen.set(`${path}?${query}`, header);
      }
    }
  });

  it('answers a query longer than a proxy passes in a challenge 414, before any payment logic', async () => {
    const app = buildApp();
    const tooLong = `/v1/site-health?domain=example.com&pad=${'x'.repeat(MAX_PAID_QUERY - 22)}`;
    for (const headers of [
      {},
      { 'payment-signature': await signFor(app, '/v1/site-health?domain=example.com') },
    ]) {
      for (const method of ['GET', 'HEAD']) {
        const res = await app.request(tooLong, { method, headers });
        expect(res.status).toBe(414);
        expect(res.headers.get('payment-required')).toBeNull();
        if (method === 'GET') expect(await res.json()).toMatchObject({ status: 414, code: 'uri_too_long' });
      }
    }
    expect(events.filter((e) => e !== 'facilitator:/supported')).toEqual([]);
  });

  it('refuses an invalid domain with 400 before any payment logic', async () => {
    const app = buildApp();
    const res = await app.request('/v1/cert?domain=not_a..domain', {
      headers: { 'payment-signature': await signFor(app, '/v1/cert?domain=example.com') },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('payment-required')).toBeNull();
    expect(await res.json()).toMatchObject({ code: 'invalid_domain' });
    expect(paths('/verify')).toHaveLength(0);
    expect(events.filter((e) => e.startsWith('upstream:'))).toEqual([]);
  });

  it('verifies, then runs the check, then settles, and returns the result with PAYMENT-RESPONSE', async () => {
    const app = buildApp();
    const signature = await signFor(app, '/v1/dns?domain=example.com');
    events.length = 0;
    const res = await app.request('/v1/dns?domain=example.com', {
      headers: { 'payment-signature': signature },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ domain: 'example.com' });
    expect(events).toEqual(['facilitator:/verify', 'upstream:v1_dns', 'facilitator:/settle']);
    const receipt = decodePaymentResponseHeader(res.headers.get('payment-response') ?? '');
    expect(receipt).toMatchObject({ success: true, transaction: FAKE_TX_HASH, network: NETWORK });
    expect(res.headers.get('cache-control')).toContain('private');
  });

  it('never settles an upstream failure: 502 problem JSON, no PAYMENT-RESPONSE', async () => {
    const app = buildApp();
    const signature = await signFor(app, '/v1/expiry?domain=example.com');
    events.length = 0;
    upstream.failing = true;
    const res = await app.request('/v1/expiry?domain=example.com', {
      headers: { 'payment-signature': signature },
    });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ code: 'upstream_failed' });
    expect(res.headers.get('payment-response')).toBeNull();
    expect(events).toEqual(['facilitator:/verify', 'upstream:v1_expiry']);
  });

  it('does not run the check when verify rejects the payment; the 402 names the reason', async () => {
    const app = buildApp();
    const signature = await signFor(app, '/v1/cert?domain=example.com');
    events.length = 0;
    facilitator.verifyAnswer = () => ({ isValid: false, invalidReason: 'invalid_exact_evm_signature' });
    const res = await app.request('/v1/cert?domain=example.com', {
      headers: { 'payment-signature': signature },
    });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({
      code: 'payment_required',
      reason: 'invalid_exact_evm_signature',
    });
    expect(decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '').error).toBe(
      'invalid_exact_evm_signature',
    );
    expect(events).toEqual(['facilitator:/verify']);
  });

  it('tells a payer with too little USDC so, with the price, instead of asking for a new signature', async () => {
    const app = buildApp();
    const signature = await signFor(app, '/v1/cert?domain=example.com');
    facilitator.verifyAnswer = () => ({
      isValid: false,
      invalidReason: 'invalid_exact_evm_insufficient_balance',
    });
    const res = await app.request('/v1/cert?domain=example.com', {
      headers: { 'payment-signature': signature },
    });
    expect(res.status).toBe(402);
    const body = (await res.json()) as { detail: string; reason: string };
    expect(body.reason).toBe('invalid_exact_evm_insufficient_balance');
    expect(body.detail).toBe(
      "The payer holds too little USDC: $0.01 needed. You were not charged; fund the payer's address and pay again.",
    );
  });

  it.each([
    [
      'a v1 payload',
      () => Buffer.from(JSON.stringify({ x402Version: 1, scheme: 'exact' })).toString('base64'),
    ],
    ['junk', () => '%%not base64%%'],
    ['an empty header', () => ''],
  ])('answers an x402 v1 X-PAYMENT (%s) with the v2 challenge and how to pay with v2', async (_, header) => {
    const app = buildApp();
    const res = await app.request('/v1/dns?domain=example.com', { headers: { 'x-payment': header() } });
    expect(res.status).toBe(402);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const body = (await res.json()) as { detail: string; code: string; x402Version: number };
    expect(body).toMatchObject({ code: 'payment_required', title: 'x402 v2 required', x402Version: 2 });
    expect(body.detail).toMatch(
      /speaks x402 v2 only .*X-PAYMENT.* \$0\.01 .*PAYMENT-REQUIRED.*PAYMENT-SIGNATURE/,
    );
    // A v2 client reading the same answer still finds its challenge.
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '');
    expect(required).toMatchObject({ x402Version: 2, accepts: [{ amount: '10000', payTo: PAY_TO }] });
    expect(paths('/verify')).toHaveLength(0);
    expect(events.filter((e) => e.startsWith('upstream:'))).toEqual([]);
  });

  it('pays a v2 PAYMENT-SIGNATURE as usual when an X-PAYMENT header comes along', async () => {
    const app = buildApp();
    const signature = await signFor(app, '/v1/dns?domain=example.com');
    const res = await app.request('/v1/dns?domain=example.com', {
      headers: { 'payment-signature': signature, 'x-payment': 'v1-leftover' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('payment-response')).not.toBeNull();
  });

  it.for([
    [400, 402, 'payment_required'],
    [422, 402, 'payment_required'],
    [401, 503, 'payment_unavailable'],
    [429, 503, 'payment_unavailable'],
    [500, 503, 'payment_unavailable'],
    [502, 503, 'payment_unavailable'],
  ] as const)(
    'a facilitator refusing verify with %i and isValid false: %i %s, nothing run',
    async ([facilitatorStatus, status, code]) => {
      const app = buildApp();
      const signature = await signFor(app, '/v1/cert?domain=example.com');
      events.length = 0;
      facilitator.verifyStatus = facilitatorStatus;
      facilitator.verifyAnswer = () => ({ isValid: false, invalidReason: 'invalid_exact_evm_signature' });
      const res = await app.request('/v1/cert?domain=example.com', {
        headers: { 'payment-signature': signature },
      });
      expect(res.status).toBe(status);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.code).toBe(code);
      if (status === 402) expect(body.reason).toBe('invalid_exact_evm_signature');
      else expect(res.headers.get('retry-after')).toBe('5');
      expect(events).toEqual(['facilitator:/verify']);
    },
  );

  it('withholds the result when settlement fails after the check ran', async () => {
    const app = buildApp();
    const signature = await signFor(app, '/v1/cert?domain=example.com');
    events.length = 0;
    facilitator.settleAnswer = () => ({
      success: false,
      errorReason: 'invalid_exact_evm_nonce_already_used',
      transaction: '',
      network: NETWORK,
    });
    const res = await app.request('/v1/cert?domain=example.com', {
      headers: { 'payment-signature': signature },
    });
    expect(res.status).toBe(402);
    const body = await res.json();
    expect(body).toMatchObject({ code: 'payment_required', title: 'Settlement failed' });
    expect(body).not.toHaveProperty('certificate');
    expect(decodePaymentResponseHeader(res.headers.get('payment-response') ?? '').success).toBe(false);
    expect(events).toEqual(['facilitator:/verify', 'upstream:v1_cert', 'facilitator:/settle']);
  });

  it('runs one signature once: concurrent copies get 409 payment_in_flight without verify or a run', async () => {
    const app = buildApp();
    const signature = await signFor(app, '/v1/dns?domain=example.com');
    events.length = 0;
    upstream.delayMs = 200;
    const responses = await Promise.all(
      Array.from({ length: 5 }, () =>
        app.request('/v1/dns?domain=example.com', { headers: { 'payment-signature': signature } }),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409]);
    const conflict = responses.find((r) => r.status === 409);
    expect(conflict?.headers.get('content-type')).toBe('application/problem+json');
    expect(await conflict?.json()).toMatchObject({ status: 409, code: 'payment_in_flight' });
    expect(events).toEqual(['facilitator:/verify', 'upstream:v1_dns', 'facilitator:/settle']);
  });

  it('loads the facilitator once for all routes, answers 503 payment_unavailable while it is down and recovers', async () => {
    facilitator.supportedFailStatus = 503;
    const app = buildApp();
    const down = await app.request('/v1/cert?domain=example.com');
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(await down.json()).toMatchObject({ code: 'payment_unavailable' });
    facilitator.supportedFailStatus = null;
    facilitator.calls.length = 0;
    const routes = ['/v1/cert', '/v1/dns', '/v1/expiry', '/v1/site-health'];
    const answers = await Promise.all(routes.map((route) => app.request(`${route}?domain=example.com`)));
    expect(answers.map((r) => r.status)).toEqual([402, 402, 402, 402]);
    await app.request('/v1/cert?domain=example.com');
    expect(paths('/supported')).toHaveLength(1);
  });
});

describe('every method of a paid route is paid or refused', () => {
  it.each(['/v1/cert', '/v1/dns', '/v1/expiry', '/v1/site-health'])(
    'HEAD %s answers the 402 challenge without a body, a verify or a run, even with a payment',
    async (route) => {
      const app = buildApp();
      const signature = await signFor(app, `${route}?domain=example.com`);
      events.length = 0;
      facilitator.calls.length = 0;
      for (const headers of [{}, { 'payment-signature': signature }]) {
        const res = await app.request(`${route}?domain=example.com`, { method: 'HEAD', headers });
        expect(res.status).toBe(402);
        expect(await res.text()).toBe('');
        const required = decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '');
        expect(required.accepts).toHaveLength(1);
      }
      expect(events).toEqual([]);
      expect(facilitator.calls.filter((c) => c.path !== '/supported')).toEqual([]);
    },
  );

  it('HEAD with an invalid domain is a 400, as GET is', async () => {
    const res = await buildApp().request('/v1/cert?domain=bad..name', { method: 'HEAD' });
    expect(res.status).toBe(400);
    expect(events).toEqual([]);
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])(
    '%s on a paid route is 405 with Allow, never run',
    async (method) => {
      const res = await buildApp().request('/v1/cert?domain=example.com', { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toContain('GET');
      expect(events).toEqual([]);
    },
  );
});
