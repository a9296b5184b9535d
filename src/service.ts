/**
 * The service assembled from a configuration and what its runtime provides: one composition for both
 * entry points (`main.ts` on Node, `edge/worker.ts` on Workers), so the two differ only in the parts
 * they choose, never in how the app is built.
 */
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { createRunners } from './runners.ts';
import type { Config } from './config.ts';
import { type AppEnv, createApp } from './app.ts';
import type { AssetLoader } from './vocabulary/page-assets.ts';
import { createLifecycle, type Lifecycle } from './lifecycle.ts';
import { createBreakerBoard } from './sources/breaker.ts';
import { createPrometheusMetrics, type PrometheusMetrics } from './ops/metrics.ts';
import type { ClientKey } from './ops/client-address.ts';
import type { RateBuckets } from './ops/rate-buckets.ts';
import type { LocalChain } from './payments/chain/local-chain.ts';
import { createPayments, type SharedPaymentState } from './payments/payments.ts';
import type { SharedAnswers } from './sources/cache.ts';
import type { Reach } from './sources/reach.ts';
import { prometheusWatchMetrics } from './watches/metrics.ts';
import {
  type WatchParts,
  type WatchRuntime,
  type WatchRuntimeFactory,
  siteHealthCheck,
} from './watches/runtime.ts';
import { createWatchSecrets } from './watches/secrets.ts';
import { createWebhookSender } from './watches/sender.ts';
import { webhookReach } from './watches/webhook-reach.ts';

/** What one runtime supplies. */
export interface Platform {
  logger: Logger;
  reach: Reach;
  /** The embedded chain, in `local-chain` mode (Node only). */
  local?: LocalChain;
  /** Payment state shared between instances; default: this process's memory. */
  shared?: SharedPaymentState;
  /** Where requests, checks and payments are counted; default: a registry with process metrics. */
  metrics?: PrometheusMetrics;
  /** Upstream answers shared between instances (CT, RDAP and its bootstrap file); default: none. */
  sharedAnswers?: SharedAnswers;
  /** Reads the home page's files; default: from disk. */
  assets?: AssetLoader;
  /** The free-work limit's buckets, shared between instances; default: this process's memory. */
  rateBuckets?: RateBuckets;
  /** Who a request is from, for the free-work limit; default: the Node socket's peer (`peerClient`). */
  clientKey?: ClientKey;
  /** Where watches are kept and scheduled; default: none (no watch routes). Needs `WATCH_SECRET_KEY` in the config. */
  watches?: WatchRuntimeFactory;
}

export interface Service {
  app: Hono<AppEnv>;
  /** Whether the process accepts settlements (its stop begins here). */
  lifecycle: Lifecycle;
  /** Resolves once the breakers' control questions asked so far are answered. */
  controlsAnswered: () => Promise<void>;
  /** The watches, when the platform keeps them: the entry point starts and stops their schedule. */
  watches?: WatchRuntime;
}

/** The global `fetch`, called as itself: Workers refuse one called as another object's method ("Illegal invocation"). */
export const globalFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);

export function createService(config: Config, platform: Platform): Service {
  const { logger, reach, local, shared } = platform;
  const lifecycle = createLifecycle();
  const breakers = createBreakerBoard();
  const metrics = platform.metrics ?? createPrometheusMetrics();
  const runners = createRunners(config, {
    fetch: reach.upstreamFetch ?? globalFetch,
    now: () => new Date(),
    reach,
    breakers,
    ...(platform.sharedAnswers ? { sharedAnswers: platform.sharedAnswers } : {}),
  });
  const payments = createPayments({
    config,
    logger,
    local,
    lifecycle,
    metrics,
    ...(shared ? { shared } : {}),
  });
  const watches = platform.watches
    ? buildWatches(config, platform.watches, runners, platform.logger, metrics, payments.chain)
    : undefined;
  const app = createApp({
    config,
    runners,
    logger,
    payments,
    metrics,
    breakers,
    ...(platform.assets ? { assets: platform.assets } : {}),
    freeWork: { buckets: platform.rateBuckets, client: platform.clientKey },
    ...(watches
      ? {
          watches: {
            service: watches.runtime.service,
            secrets: watches.secrets,
            ...(watches.runtime.ledger ? { ledger: watches.runtime.ledger } : {}),
            reach: webhookReach(runners.resolve, config.probe.allowPrivate),
          },
        }
      : {}),
  });
  return {
    app,
    lifecycle,
    controlsAnswered: breakers.controlsAnswered,
    ...(watches ? { watches: watches.runtime } : {}),
  };
}

function buildWatches(
  config: Config,
  factory: WatchRuntimeFactory,
  runners: ReturnType<typeof createRunners>,
  logger: Logger,
  metrics: PrometheusMetrics,
  chain: WatchParts['chain'],
) {
  const key = config.watches.secretKey;
  if (!key)
    throw new Error('watches need WATCH_SECRET_KEY (the Node entry point keeps one beside WATCH_DB_PATH)');
  const secrets = createWatchSecrets(key);
  const runtime: WatchRuntime = factory({
    config,
    check: siteHealthCheck(runners),
    send: createWebhookSender(runners.publicFetch),
    secrets,
    logger,
    // Asked at scrape time, once `runtime` exists.
    metrics: prometheusWatchMetrics(metrics.registry, () => runtime.counts()),
    ...(chain ? { chain } : {}),
  });
  return { runtime, secrets };
}
