/**
 * The outside bench's service: the paid routes with the real runners and no payment gate, trusting
 * the world's CA. Each call builds a fresh app (fresh runners and caches), so nothing measured
 * comes from a cache.
 */
import type { Hono } from 'hono';
import { pino } from 'pino';
import { createRunners } from '../src/runners.ts';
import type { Config } from '../src/config.ts';
import { type AppEnv, createApp } from '../src/http/app.ts';
import { globalFetch } from '../src/service.ts';
import { nodeReach } from '../src/sources/node-reach.ts';

export function outsideApp(config: Config, caPem: string): () => Hono<AppEnv> {
  const logger = pino({ level: 'silent' });
  return () =>
    createApp({
      config,
      logger,
      runners: createRunners(config, { fetch: globalFetch, now: () => new Date(), reach: nodeReach(caPem) }),
    });
}
