/**
 * A runtime's watches as one `Platform` part: the entry point picks the factory (SQLite on one
 * Node instance, Redis for several, Durable Objects on Workers); `service.ts` hands it the parts
 * every runtime shares — the first-check and scheduled check, the webhook sender, the secrets.
 */
import type { Logger } from 'pino';
import type { CheckRunners } from '../catalog.ts';
import type { Config } from '../config.ts';
import { normalizeDomain } from '../domain/normalize.ts';
import type { ChainView } from '../payments/chain/chain-view.ts';
import { confirmingCheck } from './confirm.ts';
import type { WatchMetrics } from './metrics.ts';
import type { WatchStatus } from './model.ts';
import { createPendingSweep, SWEEP_EVERY_MS, sweepWhenDue } from './pending-sweep.ts';
import type { OpenWatch, WatchCheck, WatchService, WatchStore, WebhookSender } from './ports.ts';
import { type RoundBoard, roundWindowMs, sharedRoundCheck } from './round-check.ts';
import { createWatchScheduler, type SchedulerDeps } from './scheduler.ts';
import type { WatchSecrets } from './secrets.ts';
import { createStoreWatchService } from './store-service.ts';
import type { WalletLedger } from './wallet-ledger.ts';

export interface WatchParts {
  config: Config;
  check: WatchCheck;
  send: WebhookSender;
  secrets: WatchSecrets;
  logger: Logger;
  metrics: WatchMetrics;
  /**
   * The chain, where this runtime can read it: a watch left pending by a paid call cut off is
   * activated or removed from what it says (`pending-sweep.ts`). Without it such a watch waits for
   * the same request and signature.
   */
  chain?: Pick<ChainView, 'authorizationUsed'>;
}

export interface WatchRuntime {
  service: WatchService;
  /** Who paid for what and the sign-in nonces accepted (`wallet-ledger.ts`); without it no wallet signs in. */
  ledger?: WalletLedger;
  /** Starts the schedule (a no-op where the platform schedules, e.g. Durable Object alarms). */
  start(): void;
  /** Stops claiming work; resolves when the work in hand is done and the store is closed. */
  stop(): Promise<void>;
  /** Watches by status, for the metrics. */
  counts(): Promise<Record<WatchStatus, number>>;
}

export type WatchRuntimeFactory = (parts: WatchParts) => WatchRuntime;

/** The site-health check of a stored (already normalized) domain. */
export function siteHealthCheck(runners: Pick<CheckRunners, 'siteHealth'>): WatchCheck {
  return async (domain) => {
    const checked = normalizeDomain(domain);
    if (!checked.valid) return { type: 'invalid_input', reason: checked.reason };
    const { valid: _valid, ...valid } = checked;
    return runners.siteHealth(valid);
  };
}

/**
 * Watches kept in `store`, scheduled by this process's loops (several processes may share a store).
 * With `rounds`, the scheduled checks of a domain are shared through it for a round's window
 * (`round-check.ts`); the first check of a paid call is always the buyer's own.
 */
export function storeWatchRuntime(
  store: WatchStore,
  tuning: Partial<
    Pick<
      SchedulerDeps,
      'concurrency' | 'deliveryConcurrency' | 'hostConcurrency' | 'batch' | 'leaseMs' | 'maxSleepMs'
    >
  > = {},
  rounds?: RoundBoard,
  ledger?: WalletLedger,
): WatchRuntimeFactory {
  return ({ config, check, send, secrets, logger, metrics, chain }) => {
    const { intervalS, dayS, confirmS } = config.watches;
    const confirmed = confirmingCheck(check, confirmS * 1000);
    const roundCheck = rounds
      ? sharedRoundCheck(confirmed, rounds, {
          windowMs: roundWindowMs(intervalS),
          confirmMs: confirmS * 1000,
          onError: (error) =>
            logger.warn(
              { err: error },
              'a watch round could not use the shared store; its check is not shared',
            ),
        })
      : confirmed;
    const scheduler = createWatchScheduler({
      store,
      check: roundCheck,
      send,
      secrets,
      dayS,
      logger,
      metrics,
      ...tuning,
    });
    const kept = createStoreWatchService({
      store,
      check,
      secrets,
      intervalS,
      dayS,
      logger,
      metrics,
      wake: () => scheduler.wake(),
    });
    const service = ledger ? recordingPayers(kept, ledger) : kept;
    const sweeps = chain
      ? sweepWhenDue(createPendingSweep({ store, service, chain, asset: config.x402.asset, logger }), {
          everyMs: SWEEP_EVERY_MS,
          logger,
        })
      : undefined;
    return {
      service,
      ...(ledger ? { ledger } : {}),
      start() {
        scheduler.start();
        sweeps?.start();
      },
      async stop() {
        await Promise.all([scheduler.stop(), sweeps?.stop()]);
        await store.close();
      },
      counts: () => store.countByStatus(),
    };
  };
}

/** `service`, with every paid opening written to the wallet's ledger before the watch is. */
export function recordingPayers(service: WatchService, ledger: WalletLedger, now = Date.now): WatchService {
  return {
    ...service,
    async open(request: OpenWatch) {
      if (request.payment) {
        await ledger.add(request.payment.from.toLowerCase(), { id: request.id, boughtAt: now() });
      }
      return service.open(request);
    },
  };
}
