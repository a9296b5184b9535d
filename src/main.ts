/**
 * Process entry: configuration, the embedded local chain when no facilitator is configured, the
 * HTTP server, and a graceful stop on SIGTERM/SIGINT.
 */
import { serve } from '@hono/node-server';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { captureConsole } from './console-capture.ts';
import { createLogger } from './logger.ts';
import { warnOfForeignPending } from './payments/facilitator/foreign-pending.ts';
import { countedFetch } from './http/counted-fetch.ts';
import { createInFlightLock } from './payments/server/in-flight-lock.ts';
import { type LocalChain, startLocalChain } from './payments/chain/local-chain.ts';
import { SETTLEMENT_MAX_MS } from './payments/facilitator/settlement.ts';
import { createService } from './service.ts';
import { nodeReach } from './sources/node-reach.ts';
import { openSqlitePaymentRecords, paymentsDbBeside } from './sqlite/payment-records.ts';
import { IDLE_CHECK_MS, idleRelease, releaseStartupMemory } from './startup-memory.ts';
import { listenFailure, loadConfigOrExit, localChainBanner } from './startup-messages.ts';
import { type StopOptions, stopGracefully } from './stop.ts';
import { keyBeside } from './watches/key-file.ts';
import { storeWatchRuntime } from './watches/runtime.ts';
import { openSqliteWatchStore } from './sqlite/watch-store.ts';
import { openSqliteWalletLedger } from './sqlite/wallet-ledger.ts';

/**
 * How long requests in flight at SIGTERM get to reach settlement: a check (≤ 12 s) plus its verify,
 * and several 2 s Base blocks. Settlements already under way then are let finish (≤ SETTLEMENT_MAX_MS).
 */
const SHUTDOWN_GRACE_MS = 20_000;

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  captureConsole(logger);
  // A library's floating promise (the x402 EVM scheme checks the asset's code in the background)
  // must not take the process down with it: log it, redacted, and keep serving.
  process.on('unhandledRejection', (reason) => logger.warn({ err: reason }, 'unhandled rejection'));
  const mode = config.x402.mode;
  const redis = await openRedisOrExit(config, logger);
  const local: LocalChain | undefined =
    config.x402.mode.kind === 'local-chain' ? await startLocalChain({ logger }) : undefined;
  // In local-chain mode the recipient is the chain's own dev account.
  const paying: Config = local ? { ...config, x402: { ...config.x402, payTo: local.payTo } } : config;
  // One instance without REDIS_URL keeps its watches, and the payment records a restart must not
  // forget (settling records, lost results, identified answers), in embedded SQLite stores.
  const watchStore = config.redisUrl ? undefined : openSqliteWatchStore(config.watches.dbPath);
  const paymentRecords = config.redisUrl
    ? undefined
    : openSqlitePaymentRecords(paymentsDbBeside(config.watches.dbPath));
  const effective: Config = {
    ...paying,
    watches: { ...paying.watches, secretKey: config.watches.secretKey ?? keyBeside(config.watches.dbPath) },
  };

  if (!redis && mode.kind === 'self') void warnOfForeignPending(mode.rpcUrl, mode.settlerPrivateKey, logger);

  // Test CAs reach the live probe through NODE_EXTRA_CA_CERTS, which Node reads at start.
  const { app, lifecycle, watches } = createService(effective, {
    logger,
    reach: nodeReach(),
    local,
    ...(watchStore
      ? {
          watches: storeWatchRuntime(
            watchStore,
            {},
            undefined,
            openSqliteWalletLedger(config.watches.dbPath),
          ),
        }
      : {}),
    ...(paymentRecords ? { shared: { lock: createInFlightLock(), ...paymentRecords } } : {}),
    ...redis?.parts,
  });
  watches?.start();

  const counted = countedFetch(app.fetch);
  const server = serve(
    {
      fetch: counted.fetch,
      port: config.port,
      hostname: config.host,
    },
    (info) => {
      logger.info({ port: info.port, host: config.host, mode: config.x402.mode.kind }, 'listening');
      if (local) process.stdout.write(localChainBanner(effective, local));
      releaseStartupMemory();
      setInterval(
        idleRelease({ requests: () => ({ started: counted.started(), active: counted.active() }) }),
        IDLE_CHECK_MS,
      ).unref();
    },
  );

  server.once('error', async (error) => {
    const line = listenFailure(error, config);
    if (!line) throw error;
    process.stderr.write(`${line}\n`);
    await local?.stop();
    process.exit(1);
  });

  stopOnSignals(logger, { server, lifecycle, activeRequests: counted.active }, async () => {
    await watches?.stop();
    await Promise.all([local?.stop(), redis?.close()]);
  });
}

/** The shared Redis platform when REDIS_URL is set; a server that refuses to serve ends the process. */
async function openRedisOrExit(config: Config, logger: Logger) {
  if (!config.redisUrl) return undefined;
  const redis = (await import('./redis/platform.ts')).redisPlatform(config.redisUrl, logger, {
    settlerNonces: config.x402.mode.kind === 'self',
  });
  const refusal = await redis.refusal();
  if (refusal) {
    process.stderr.write(`${refusal}\n`);
    await redis.close();
    process.exit(1);
  }
  return redis;
}

/**
 * On SIGTERM or SIGINT, stops taking work and lets what is in flight finish within the grace, then
 * closes the rest (`closeRest`) and exits.
 */
function stopOnSignals(
  logger: Logger,
  stopping: Omit<StopOptions, 'hardStopMs'>,
  closeRest: () => Promise<void>,
): void {
  const { lifecycle } = stopping;
  const stop = (signal: string) => {
    if (lifecycle.stopping) return;
    logger.info({ signal }, 'shutting down');
    lifecycle.beginStop(SHUTDOWN_GRACE_MS);
    stopGracefully({ ...stopping, hardStopMs: SHUTDOWN_GRACE_MS + SETTLEMENT_MAX_MS + 5_000 }).then(
      async (clean) => {
        if (!clean) logger.warn('stop deadline reached; closing the remaining connections');
        await closeRest();
        process.exit(0);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

await main();
