/**
 * The free-work limit on the Worker, in local workerd with two isolates sharing the Durable Objects:
 * the client is `CF-Connecting-IP` (canonical: IPv6 by /64, IPv4-mapped as IPv4), its bucket is one
 * `RateBucketObject` whichever isolate serves it, and the 429 is Node's answer, byte for byte but
 * for the seconds to wait. Discovery documents stay unlimited; the rate-limited counter moves.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorker, type WorkerBundle } from '../../scripts/local-edge.ts';
import { loadConfig } from '../../src/config.ts';
import { type LocalChain, startLocalChain } from '../../src/payments/chain/local-chain.ts';
import { createService } from '../../src/service.ts';
import { nodeReach } from '../../src/sources/node-reach.ts';
import { type ServedApp, serveApp } from '../support/serve-app.ts';
import { type EdgeService, startEdgeService } from '../world/edge-service.ts';
import { startWorld, type World } from '../world/index.ts';

const BURST = 3;
const METRICS_TOKEN = 'edge-free-work-metrics';
const VALIDATE = '/v1/validate?domain=healthy-shop.com';

let world: World;
let chain: LocalChain;
let bundle: WorkerBundle;
let edge: EdgeService;

beforeAll(async () => {
  [world, chain, bundle] = await Promise.all([startWorld(), startLocalChain(), buildWorker()]);
  edge = await startEdgeService({
    world,
    chain,
    bundle,
    instances: 2,
    variables: { RATE_LIMIT_BURST: String(BURST), RATE_LIMIT_PER_MINUTE: '1', METRICS_TOKEN },
  });
}, 120_000);
afterAll(async () => {
  await edge?.stop();
  await Promise.all([world?.close(), chain?.stop()]);
});

/** GET `path` on isolate `instance` as the client at `ip` (no CF-Connecting-IP when undefined). */
async function get(path: string, instance: number, ip: string | undefined, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  if (ip !== undefined) headers.set('cf-connecting-ip', ip);
  const res = await fetch(new URL(path, edge.urls[instance]), { ...init, headers });
  return { res, body: await res.text() };
}

/** Statuses of `path` from `ip`, alternating between the two isolates. */
async function statuses(path: string, ips: (string | undefined)[]): Promise<number[]> {
  const seen = [];
  for (const [i, ip] of ips.entries()) seen.push((await get(path, i % 2, ip)).res.status);
  return seen;
}

/** The rate-limited counter summed over both isolates (each counts its own). */
async function rateLimited(): Promise<number> {
  let sum = 0;
  for (const instance of [0, 1]) {
    const { body } = await get('/metrics', instance, '198.51.100.250', {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const line = body.split('\n').find((l) => l.startsWith('website_checks_rate_limited_total '));
    sum += Number(line?.split(' ')[1]);
  }
  return sum;
}

/** The headers a 429 is judged by. */
const LIMIT_HEADERS = [
  'content-type',
  'ratelimit-limit',
  'ratelimit-policy',
  'ratelimit-remaining',
  'ratelimit-reset',
];

describe('the free-work limit on the Worker', () => {
  it('shares one bucket per CF-Connecting-IP across isolates and answers the same 429 as Node', async () => {
    const before = await rateLimited();
    const a = '198.51.100.7';
    expect(await statuses(VALIDATE, [a, a, a])).toEqual([200, 200, 200]);
    const refused = await get(VALIDATE, 1, a);
    expect(refused.res.status).toBe(429);
    // The same client in its IPv4-mapped spellings, on either isolate.
    expect(await statuses(VALIDATE, ['::ffff:198.51.100.7', '::ffff:c633:6407'])).toEqual([429, 429]);
    // Another address still passes; so does a paid route's challenge from it, until its own burst is spent.
    expect(await statuses(VALIDATE, ['198.51.100.8'])).toEqual([200]);
    expect(await statuses('/v1/expiry?domain=healthy-shop.com', Array(3).fill('198.51.100.8'))).toEqual([
      402, 402, 429,
    ]);
    // Discovery documents are not free work: the limited client still gets them.
    for (const path of ['/', '/openapi.json', '/.well-known/x402', '/llms.txt', '/mcp/server-card'])
      expect((await get(path, 0, a)).res.status, path).toBe(200);
    expect(await rateLimited()).toBe(before + 4);

    // Node, configured alike, answers its fourth free request from one address the same way.
    const node = createService(loadConfig(edge.variables), {
      logger: pino({ level: 'silent' }),
      reach: nodeReach(world.site.caPem),
    });
    const served: ServedApp = await serveApp(node.app);
    try {
      let fromNode: Response | undefined;
      let nodeBody = '';
      for (let i = 0; i < BURST + 1; i += 1) {
        fromNode = await fetch(new URL(VALIDATE, served.origin));
        nodeBody = await fromNode.text();
      }
      expect(fromNode?.status).toBe(429);
      const seconds = /retry in \d+ s/;
      expect(refused.body.replace(seconds, '')).toBe(nodeBody.replace(seconds, ''));
      for (const name of LIMIT_HEADERS)
        expect(refused.res.headers.get(name), name).toBe(fromNode?.headers.get(name));
      expect(Number(refused.res.headers.get('retry-after'))).toBeGreaterThan(50);
      expect(JSON.parse(refused.body)).toMatchObject({ status: 429, code: 'rate_limited' });
    } finally {
      await served.close();
    }
  });

  it('keys IPv6 clients by their /64, and values that are not an address share one bucket', async () => {
    expect(
      await statuses(VALIDATE, [
        '2001:db8:1:2::1',
        '2001:db8:1:2::2',
        '2001:DB8:1:2:ffff::9',
        '2001:db8:1:2:0:0:0:3',
      ]),
    ).toEqual([200, 200, 200, 429]);
    expect(await statuses(VALIDATE, ['2001:db8:1:3::1'])).toEqual([200]);
    // Not an address, or none at all: the Worker believes nothing else (X-Forwarded-For included).
    const unattributed = [undefined, 'not-an-ip', '203.0.113.7:8080', '9'.repeat(4096), undefined];
    expect(await statuses(VALIDATE, unattributed)).toEqual([200, 200, 200, 429, 429]);
    const forwarded = await get(VALIDATE, 0, undefined, { headers: { 'x-forwarded-for': '198.51.100.99' } });
    expect(forwarded.res.status).toBe(429);
  });

  it('printed no error', () => {
    expect(edge.output()).not.toMatch(/uncaught|rate-limit store failed|"level":50/i);
  });
});
