/**
 * The operator's view over real sockets: /metrics after paid calls, a 502 and a 429 (parsed with a
 * Prometheus text parser), /readyz across facilitator trouble and shutdown, and the free-work limit.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { wrapFetchWithPayment } from '@x402/fetch';
import { Hono } from 'hono';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { pino } from 'pino';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { applyHttpHygiene } from '../../src/http/hygiene/index.ts';
import { createBreakerBoard } from '../../src/sources/breaker.ts';
import { createPrometheusMetrics, noMetrics, type PrometheusMetrics } from '../../src/ops/metrics.ts';
import { isFreeWork } from '../../src/http/ops/free-work.ts';
import { peerClient } from '../../src/ops/client-address.ts';
import { memoryRateBuckets, RATE_LIMIT_MAX_CLIENTS } from '../../src/ops/rate-buckets.ts';
import { createRateLimiter, type RateLimiter } from '../../src/http/ops/rate-limit.ts';
import { type LocalChain, startLocalChain } from '../../src/payments/chain/local-chain.ts';
import { createPayments, type Payments } from '../../src/payments/payments.ts';
import { type CheckUpstream, startCheckUpstream, upstreamRunners } from '../world/check-upstream.ts';
import { clientFor } from '../world/payer-client.ts';

const logger = pino({ level: 'silent' });
const BURST = 4;

interface Sample {
  labels?: Record<string, string>;
  value?: string;
  count?: string;
}
type Families = Map<string, Sample[]>;

async function scrape(base: URL, token?: string): Promise<Families> {
  const res = await fetch(
    new URL('/metrics', base),
    token ? { headers: { authorization: `Bearer ${token}` } } : {},
  );
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const families = parsePrometheusTextFormat(await res.text()) as { name: string; metrics: Sample[] }[];
  return new Map(families.map((family) => [family.name, family.metrics]));
}

function value(families: Families, name: string, labels: Record<string, string> = {}): number {
  const sample = families
    .get(name)
    ?.find((s) => Object.entries(labels).every(([key, expected]) => s.labels?.[key] === expected));
  return Number(sample?.value ?? sample?.count ?? 0);
}

describe('/metrics and /readyz on the paid service', () => {
  let chain: LocalChain;
  let upstream: CheckUpstream;
  let payments: Payments;
  let metrics: PrometheusMetrics;
  let base: URL;
  let close: () => void;
  const token = 'metrics-token-for-the-test';

  beforeAll(async () => {
    chain = await startLocalChain();
    upstream = await startCheckUpstream();
    let handle: (request: Request, env: unknown) => Response | Promise<Response> = () => new Response(null);
    const server = serve({ fetch: (request, env) => handle(request, env), hostname: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const loaded = loadConfig({
      LOG_LEVEL: 'silent',
      PUBLIC_BASE_URL: base.origin,
      RATE_LIMIT_BURST: String(BURST),
      RATE_LIMIT_PER_MINUTE: '6',
      METRICS_TOKEN: token,
    });
    const config = { ...loaded, x402: { ...loaded.x402, payTo: chain.payTo } };
    metrics = createPrometheusMetrics();
    payments = createPayments({ config, logger, local: chain, metrics });
    const breakers = createBreakerBoard();
    breakers.of('crt.sh', async () => true);
    const app = createApp({
      config,
      runners: upstreamRunners(upstream),
      logger,
      payments,
      metrics,
      breakers,
    });
    handle = (request, env) => app.fetch(request, env);
    close = () => {
      if ('closeAllConnections' in server) server.closeAllConnections();
      server.close();
    };
  }, 60_000);
  afterAll(async () => {
    close();
    await upstream.close();
    await chain.stop();
  });

  /** `operation|outcome` → observations of the check duration histogram. */
  async function checkCounts(): Promise<Record<string, number>> {
    const histogram = await metrics.registry.getSingleMetric('website_checks_check_duration_seconds')!.get();
    const counts: Record<string, number> = {};
    for (const sample of histogram.values) {
      if ((sample as { metricName?: string }).metricName !== 'website_checks_check_duration_seconds_count')
        continue;
      counts[`${sample.labels.operation}|${sample.labels.outcome}`] = sample.value;
    }
    return counts;
  }

  it('counts paid calls, a 502 and a 429, in a parseable exposition; needs the token', async () => {
    expect((await fetch(new URL('/metrics', base))).status).toBe(401);
    const before = await scrape(base, token);
    const checksBefore = await checkCounts();
    const key = generatePrivateKey();
    const payer = privateKeyToAccount(key);
    await chain.fund(payer.address, 1_000_000n);
    const client = clientFor(payer);
    const pay = wrapFetchWithPayment(fetch, client);
    const expiryUrl = new URL('/v1/expiry?domain=healthy-shop.com', base);
    const unpaid = await fetch(expiryUrl);
    expect(unpaid.status).toBe(402);
    await unpaid.arrayBuffer();
    const expiryChallenge = decodePaymentRequiredHeader(unpaid.headers.get('payment-required') ?? '');

    const paid = await pay(new URL('/v1/cert?domain=healthy-shop.com', base));
    expect(paid.status).toBe(200);
    await paid.arrayBuffer();
    upstream.failing = true;
    const failed = await pay(new URL('/v1/dns?domain=healthy-shop.com', base));
    upstream.failing = false;
    expect(failed.status).toBe(502);
    await failed.arrayBuffer();

    // The unpaid challenges above used 3 of the 4 tokens: one more free call, then 429.
    const statuses = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await fetch(new URL('/v1/validate?domain=healthy-shop.com', base));
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(((await res.json()) as { code: string }).code).toBe('rate_limited');
        expect(Number(res.headers.get('retry-after'))).toBe(10);
        expect(res.headers.get('ratelimit-limit')).toBe(String(BURST));
        expect(res.headers.get('ratelimit-remaining')).toBe('0');
        expect(res.headers.get('ratelimit-policy')).toBe(`${BURST};w=40`);
      } else {
        expect(res.headers.get('ratelimit-remaining')).toBe('0');
        await res.arrayBuffer();
      }
    }
    expect(statuses).toEqual([200, 429, 429]);

    // Unpaid, the paid route is limited too; carrying a payment it is not: verification decides.
    const limitedChallenge = await fetch(expiryUrl);
    expect(limitedChallenge.status).toBe(429);
    await limitedChallenge.arrayBuffer();
    const payload = await client.createPaymentPayload(expiryChallenge);
    const paidAgain = await fetch(expiryUrl, {
      headers: { 'payment-signature': encodePaymentSignatureHeader(payload) },
    });
    expect(paidAgain.status).toBe(200);
    await paidAgain.arrayBuffer();

    const after = await scrape(base, token);
    const delta = (name: string, labels: Record<string, string> = {}) =>
      value(after, name, labels) - value(before, name, labels);
    expect(delta('website_checks_http_requests_total', { route: '/v1/cert', status: '200' })).toBe(1);
    expect(delta('website_checks_http_requests_total', { route: '/v1/dns', status: '502' })).toBe(1);
    expect(delta('website_checks_http_requests_total', { route: '/v1/validate', status: '429' })).toBe(2);
    expect(delta('website_checks_http_requests_total', { route: '/v1/validate', status: '200' })).toBe(1);
    expect(delta('website_checks_http_requests_total', { route: '/v1/expiry', status: '200' })).toBe(1);
    expect(delta('website_checks_payments_total', { outcome: 'challenged' })).toBe(3);
    expect(delta('website_checks_payments_total', { outcome: 'verified' })).toBe(3);
    expect(delta('website_checks_payments_total', { outcome: 'settled' })).toBe(2);
    expect(delta('website_checks_payments_total', { outcome: 'settlement_failed' })).toBe(0);
    expect(delta('website_checks_usdc_settled_atomic_total')).toBe(20_000);
    expect(delta('website_checks_rate_limited_total')).toBeGreaterThanOrEqual(3);
    // The text parser drops histogram labels; histogram counts are read from the registry itself.
    const checksAfter = await checkCounts();
    expect(checksAfter['cert|result']! - (checksBefore['cert|result'] ?? 0)).toBe(1);
    expect(checksAfter['dns|upstream_failed']! - (checksBefore['dns|upstream_failed'] ?? 0)).toBe(1);
    expect(after.get('website_checks_check_duration_seconds')?.length).toBeGreaterThan(0);
    expect(value(after, 'website_checks_paid_requests_in_flight')).toBe(0);
    expect(value(after, 'website_checks_circuit_breaker_state', { source: 'crt.sh' })).toBe(0);
    expect(after.has('process_cpu_user_seconds_total')).toBe(true);
  }, 60_000);

  it('/readyz is 200 while payments can be taken, 503 once stopping', async () => {
    const ready = await fetch(new URL('/readyz', base));
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      payments: true,
      stopping: false,
      causes: [],
      breakers: { 'crt.sh': 'closed' },
      settlement_rpc: 'reachable',
      clock_skew_s: expect.any(Number),
    });
    const metricsNow = await scrape(base, token);
    expect(value(metricsNow, 'website_checks_ready')).toBe(1);
    payments.lifecycle.beginStop(60_000);
    const stopping = await fetch(new URL('/readyz', base));
    expect(stopping.status).toBe(503);
    expect(await stopping.json()).toMatchObject({
      status: 'not_ready',
      stopping: true,
      causes: ['stopping'],
    });
    const metricsStopping = await scrape(base, token);
    expect(value(metricsStopping, 'website_checks_ready')).toBe(0);
    expect(value(metricsStopping, 'website_checks_not_ready', { cause: 'stopping' })).toBe(1);
  });
});

describe('/readyz with an unreachable facilitator', () => {
  it('is 503 naming payments as not ready; /health stays 200', async () => {
    // A port that was just free: connections to it are refused.
    const probe = serve({ fetch: () => new Response(null), hostname: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => probe.once('listening', () => resolve()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      X402_FACILITATOR_URL: `http://127.0.0.1:${port}`,
      X402_PAY_TO: '0x1111111111111111111111111111111111111111',
    });
    const payments = createPayments({ config, logger });
    const upstream = await startCheckUpstream();
    try {
      const app = createApp({ config, runners: upstreamRunners(upstream), logger, payments });
      const res = await app.request('/readyz');
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({
        status: 'not_ready',
        payments: false,
        stopping: false,
        causes: ['facilitator_unavailable'],
      });
      expect((await app.request('/health')).status).toBe(200);
    } finally {
      await upstream.close();
    }
  });
});

describe('free-work limit store', () => {
  /** An app with the hygiene middleware limiting by `limiter`. */
  const limitedApp = (limiter: RateLimiter) => {
    const app = new Hono();
    applyHttpHygiene(app, { logger: pino({ level: 'silent' }), limiter });
    return app;
  };
  const from = (address: string) => ({ incoming: { socket: { remoteAddress: address } } });

  it('keeps at most RATE_LIMIT_MAX_CLIENTS buckets under 100k distinct client addresses', async () => {
    const buckets = memoryRateBuckets();
    const limiter = createRateLimiter({
      burst: 1,
      perMinute: 1,
      client: peerClient([]),
      metrics: noMetrics,
      applies: () => true,
      buckets,
    });
    const app = limitedApp(limiter).get('/', (c) => c.text('ok'));
    const addressOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    for (let i = 0; i < 100_000; i += 1) {
      const res = await app.request('/', {}, from(addressOf(i)));
      expect(res.status).toBe(200);
    }
    // The newest address and the oldest of the last RATE_LIMIT_MAX_CLIENTS still have their buckets:
    // a second call from them is limited; the one before those was forgotten and starts full.
    expect((await app.request('/', {}, from(addressOf(99_999)))).status).toBe(429);
    expect((await app.request('/', {}, from(addressOf(100_000 - RATE_LIMIT_MAX_CLIENTS)))).status).toBe(429);
    expect((await app.request('/', {}, from(addressOf(100_000 - RATE_LIMIT_MAX_CLIENTS - 1)))).status).toBe(
      200,
    );
  }, 60_000);

  it('takes from an asynchronous store, and lets free work through (saying so once) while the store fails', async () => {
    const memory = memoryRateBuckets();
    let down = false;
    const failures: unknown[] = [];
    const limiter = createRateLimiter({
      burst: 2,
      perMinute: 1,
      client: peerClient([]),
      metrics: noMetrics,
      applies: () => true,
      buckets: {
        take: async (client, burst, perMs, now) => {
          await new Promise((resolve) => setImmediate(resolve));
          if (down) throw new Error('store unreachable');
          return memory.take(client, burst, perMs, now);
        },
      },
      onStoreFailure: (error) => failures.push(error),
    });
    const app = limitedApp(limiter).get('/', (c) => c.text('ok'));
    const statuses = async (n: number) => {
      const answers = [];
      for (let i = 0; i < n; i += 1) answers.push((await app.request('/', {}, from('198.51.100.3'))).status);
      return answers;
    };
    const first = await app.request('/', {}, from('198.51.100.3'));
    expect(first.headers.get('ratelimit-remaining')).toBe('1');
    expect(await statuses(2)).toEqual([200, 429]);
    down = true;
    expect(await statuses(3)).toEqual([200, 200, 200]);
    expect(failures.map(String)).toEqual(['Error: store unreachable']);
    down = false;
    expect(await statuses(1)).toEqual([429]);
  });

  it('believes X-Forwarded-For only from a trusted proxy', async () => {
    const limiter = createRateLimiter({
      burst: 1,
      perMinute: 1,
      client: peerClient(['192.0.2.10']),
      metrics: noMetrics,
      applies: () => true,
    });
    const app = limitedApp(limiter).get('/', (c) => c.text('ok'));
    const viaProxy = (client: string) =>
      app.request(
        '/',
        { headers: { 'x-forwarded-for': `203.0.113.99, ${client}` } },
        from('::ffff:192.0.2.10'),
      );
    expect((await viaProxy('198.51.100.1')).status).toBe(200);
    expect((await viaProxy('198.51.100.2')).status).toBe(200);
    expect((await viaProxy('198.51.100.1')).status).toBe(429);
    // From an untrusted peer the header is ignored: the peer itself is the client.
    const direct = (claimed: string) =>
      app.request('/', { headers: { 'x-forwarded-for': claimed } }, from('198.51.100.7'));
    expect((await direct('203.0.113.1')).status).toBe(200);
    expect((await direct('203.0.113.2')).status).toBe(429);
  });

  it('limits free MCP tool calls and unpaid challenges, never a call carrying a payment, and leaves the body readable', async () => {
    const limiter = createRateLimiter({
      burst: 2,
      perMinute: 1,
      client: peerClient([]),
      metrics: noMetrics,
      applies: isFreeWork,
    });
    const app = limitedApp(limiter).post('/mcp', async (c) => c.text(await c.req.text()));
    const rpc = (method: string, params: Record<string, unknown> = {}) =>
      app.request(
        '/mcp',
        { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) },
        from('198.51.100.9'),
      );
    const freeCall = () =>
      rpc('tools/call', { name: 'validate_target', arguments: { domain: 'example.com' } });
    const paidCall = () =>
      rpc('tools/call', {
        name: 'check_cert',
        arguments: { domain: 'example.com' },
        _meta: { 'x402/payment': { x402Version: 2 } },
      });
    const first = await freeCall();
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('validate_target');
    expect((await rpc('tools/list')).status).toBe(200);
    expect((await freeCall()).status).toBe(200);
    const limited = await freeCall();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).not.toBeNull();
    for (let i = 0; i < 5; i += 1) expect((await paidCall()).status).toBe(200);
    expect((await rpc('initialize')).status).toBe(200);
  });
});
