/**
 * The outside bench's service: the paid routes with the real runners and no payment gate, trusting
 * the world's CA. Each call builds a fresh app (fresh runners and caches), so nothing measured
 * comes from a cache; its router is compiled before it is measured.
 */
import type { Hono } from 'hono';
import { pino } from 'pino';
import { createRunners } from '../src/runners.ts';
import type { Config } from '../src/config.ts';
import { type AppEnv, createApp } from '../src/app.ts';
import { NO_OP_GATE } from '../src/http/payment-gate.ts';
import { globalFetch } from '../src/service.ts';
import { nodeReach } from '../src/sources/node-reach.ts';

export function outsideApp(config: Config, caPem: string): () => Promise<Hono<AppEnv>> {
  const logger = pino({ level: 'silent' });
  return async () => {
    const app = createApp({
      payments: NO_OP_GATE,
      config,
      logger,
      runners: createRunners(config, { fetch: globalFetch, now: () => new Date(), reach: nodeReach(caPem) }),
    });
    // Hono compiles its router on an app's first request (~0.5 ms): the running service did that
    // once, at its first request, so it is not part of a check's window.
    await (await app.request('/health')).arrayBuffer();
    return app;
  };
}
