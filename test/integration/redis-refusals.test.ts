/**
 * A client refused by the free-work limit of a fleet (`REDIS_URL`, a real redis-server) is refused
 * by its instance until its next token is due, without a Redis round trip each: a flood costs the
 * store about one script call per token, counted by the server itself (`INFO commandstats`).
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { NO_OP_GATE } from '../../src/http/payment-gate.ts';
import { createPrometheusMetrics } from '../../src/ops/metrics.ts';
import { type RedisPlatform, redisPlatform } from '../../src/redis/platform.ts';
import { type ServedApp, serveApp } from '../support/serve-app.ts';
import { PUBLIC_BASE_URL, throwingRunners } from '../unit/http/discovery/discovery-app.ts';
import { type RedisServer, startRedisServer } from '../world/redis-server.ts';

const BURST = 3;
const FLOOD = 40;
const logger = pino({ level: 'silent' });
const config = loadConfig({ PUBLIC_BASE_URL, RATE_LIMIT_BURST: String(BURST), RATE_LIMIT_PER_MINUTE: '1' });

let server: RedisServer;
let platform: RedisPlatform;
let served: ServedApp;

beforeAll(async () => {
  server = await startRedisServer();
  platform = redisPlatform(server.url, logger, { settlerNonces: false });
  expect(await platform.refusal()).toBeNull();
  const metrics = createPrometheusMetrics({ processMetrics: false });
  const { rateBuckets } = platform.parts;
  served = await serveApp(
    createApp({
      payments: NO_OP_GATE,
      config,
      logger,
      runners: throwingRunners(),
      metrics,
      freeWork: { buckets: rateBuckets },
    }),
  );
});
afterAll(async () => {
  await served?.close();
  await platform?.close();
  await server?.close();
});

/** Script calls the server has run (the bucket script; `EVAL` after a `NOSCRIPT` counts too). */
async function scriptCalls(): Promise<number> {
  const stats = await server.client.info('commandstats');
  return [...stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce(
    (sum, [, calls]) => sum + Number(calls),
    0,
  );
}

describe('a refused client of a fleet', () => {
  it('is refused without a Redis round trip each', async () => {
    const before = await scriptCalls();
    const statuses: number[] = [];
    for (let n = 0; n < FLOOD; n += 1) {
      const res = await fetch(new URL('/v1/validate?domain=example.com', served.origin));
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses.filter((status) => status === 429)).toHaveLength(FLOOD - BURST);
    // The burst's takes, the first refusal, and at most one EVAL after the script was unknown.
    expect((await scriptCalls()) - before).toBeLessThanOrEqual(BURST + 2);
  });
});
