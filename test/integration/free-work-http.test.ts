/**
 * What the free-work limit covers, over a real socket with a burst of 3: a discovery crawler that
 * fetches every document, page asset and a few missing paths many times (plain, HEAD and
 * revalidating with the ETag) is never refused, while a `/v1/validate` flood from the same address
 * is, and the rate-limited counter says so.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeOperations } from '../../src/catalog.ts';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { NO_OP_GATE } from '../../src/http/payment-gate.ts';
import { readAssetFile } from '../../src/http/discovery/asset-files.ts';
import { discoveryRoutes } from '../../src/http/discovery/routes.ts';
import { createPrometheusMetrics, type PrometheusMetrics } from '../../src/ops/metrics.ts';
import { type ServedApp, serveApp } from '../support/serve-app.ts';
import { PUBLIC_BASE_URL, throwingRunners } from '../unit/http/discovery/discovery-app.ts';

const BURST = 3;
const config = loadConfig({ PUBLIC_BASE_URL, RATE_LIMIT_BURST: String(BURST), RATE_LIMIT_PER_MINUTE: '1' });
/** Every document, page asset and icon the discovery routes serve. */
const DOCUMENTS = discoveryRoutes(config, readAssetFile)
  .routes.filter((route) => route.method === 'GET')
  .map((route) => route.path);
/** Paths a crawler probes that this service does not have. */
const MISSING = [
  '/.well-known/mcp.json',
  '/.well-known/agent.json',
  '/.well-known/security.txt',
  '/favicon.png',
];

let served: ServedApp;
let metrics: PrometheusMetrics;

beforeAll(async () => {
  metrics = createPrometheusMetrics({ processMetrics: false });
  served = await serveApp(
    createApp({
      payments: NO_OP_GATE,
      config,
      logger: pino({ level: 'silent' }),
      runners: throwingRunners(),
      metrics,
    }),
  );
});
afterAll(() => served?.close());

const at = (path: string) => new URL(path, served.origin);
const rateLimited = async () =>
  (await metrics.registry.getSingleMetricAsString('website_checks_rate_limited_total'))
    .split('\n')
    .find((line) => line.startsWith('website_checks_rate_limited_total '));

describe('the free-work limit', () => {
  it('never refuses a discovery crawler, and still refuses a validate flood from the same address', async () => {
    expect(DOCUMENTS).toEqual(
      expect.arrayContaining(['/', '/openapi.json', '/.well-known/x402', '/llms.txt', '/robots.txt']),
    );
    expect(DOCUMENTS.length).toBeGreaterThan(12);
    const etags = new Map<string, string>();
    const statuses = new Map<number, number>();
    const seen = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    for (let round = 0; round < 10; round += 1) {
      for (const path of [...DOCUMENTS, ...MISSING]) {
        const etag = etags.get(path);
        const requests: RequestInit[] = [
          { headers: { accept: round % 2 ? 'text/html' : 'application/json' } },
          { method: 'HEAD' },
          ...(etag ? [{ headers: { 'if-none-match': etag } }] : []),
        ];
        for (const init of requests) {
          const res = await fetch(at(path), init);
          await res.arrayBuffer();
          seen(res.status);
          expect(res.status, `${init.method ?? 'GET'} ${path}`).not.toBe(429);
          expect(res.headers.get('ratelimit-remaining'), path).toBeNull();
          const tag = res.headers.get('etag');
          if (tag) etags.set(path, tag);
        }
      }
    }
    // Full documents, revalidations and the probes of missing paths: hundreds of answers, none refused.
    expect(statuses.get(200)).toBeGreaterThan(300);
    expect(statuses.get(304)).toBeGreaterThan(100);
    expect(statuses.get(404)).toBeGreaterThan(30);
    expect(await rateLimited()).toBe('website_checks_rate_limited_total 0');

    const validate = freeOperations.find((operation) => operation.id === 'v1_validate')?.route ?? '';
    const flood: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const res = await fetch(at(`${validate}?domain=example.com`), i % 2 ? { method: 'HEAD' } : {});
      await res.arrayBuffer();
      flood.push(res.status);
    }
    expect(flood).toEqual([200, 200, 200, 429, 429, 429]);
    expect(await rateLimited()).toBe('website_checks_rate_limited_total 3');
  }, 60_000);
});
