/**
 * Process entry: configuration, the embedded local chain when no facilitator is configured, the
 * HTTP server, and a graceful stop on SIGTERM/SIGINT.
 */
import { serve } from '@hono/node-server';
import { createRunners } from './checks/runners.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { createApp } from './http/app.ts';
import { createLogger } from './logger.ts';
import { createFacilitatorClient } from './payments/facilitator.ts';
import { createPaymentGate } from './payments/gate.ts';
import { createInFlightLock } from './payments/in-flight-lock.ts';
import { type LocalChain, startLocalChain } from './payments/local-chain.ts';
import { createResourceServer } from './payments/resource-server.ts';
import { listenFailure, localChainBanner } from './startup-messages.ts';

/** How long in-flight requests get to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  const local: LocalChain | undefined =
    config.x402.mode.kind === 'local-chain' ? await startLocalChain({ logger }) : undefined;
  // In local-chain mode the recipient is the chain's own dev account.
  const effective: Config = local ? { ...config, x402: { ...config.x402, payTo: local.payTo } } : config;

  // Test CAs reach the live probe through NODE_EXTRA_CA_CERTS, which Node reads at start.
  const runners = createRunners(effective, { fetch: globalThis.fetch, now: () => new Date() });
  const resourceServer = createResourceServer(
    createFacilitatorClient(effective, local),
    effective.x402.network,
  );
  // One lock for both transports: a signature runs once whether it arrives over HTTP or MCP.
  const lock = createInFlightLock();
  const paymentGate = createPaymentGate({ resourceServer, config: effective, logger, lock });
  const app = createApp({ config: effective, runners, logger, paymentGate, mcp: { resourceServer, lock } });

  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    logger.info({ port: info.port, host: config.host, mode: config.x402.mode.kind }, 'listening');
    if (local) process.stdout.write(localChainBanner(effective, local));
  });

  server.once('error', async (error) => {
    const line = listenFailure(error, config);
    if (!line) throw error;
    process.stderr.write(`${line}\n`);
    await local?.stop();
    process.exit(1);
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(async () => {
      await local?.stop();
      process.exit(0);
    });
    // Idle keep-alive sockets would hold close() open until they time out.
    if ('closeIdleConnections' in server) server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

await main();
