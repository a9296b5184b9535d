/**
 * The paid service with watches on loopback: a local anvil chain, the in-process facilitator, the
 * real payment gate and watch routes, the SQLite store in a temporary file, the scheduler and the
 * steered webhook sender (loopback admitted, as `PROBE_ALLOW_PRIVATE=true` admits it). The check
 * is a site-health result the test flips: the probe failing or not, the certificate's lifetime
 * left, or the check failing altogether.
 */
import { webhookReach } from '../../src/watches/webhook-reach.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { pino } from 'pino';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import type { SiteHealthResult } from '../../src/checks/site-health/result.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { type LocalChain, startLocalChain } from '../../src/payments/chain/local-chain.ts';
import { outputExampleFor } from '../../src/payments/server/output-examples.ts';
import { createPayments } from '../../src/payments/payments.ts';
import {
  createNodeTransport,
  createPublicFetch,
  type SocketConnector,
} from '../../src/sources/public-fetch/index.ts';
import { connectSocket } from '../../src/sources/public-fetch/node-transport.ts';
import { noWatchMetrics } from '../../src/watches/metrics.ts';
import type { WatchStore } from '../../src/watches/ports.ts';
import { storeWatchRuntime, type WatchRuntime } from '../../src/watches/runtime.ts';
import { createWatchSecrets } from '../../src/watches/secrets.ts';
import { createWebhookSender } from '../../src/watches/sender.ts';
import { openSqliteWatchStore } from '../../src/sqlite/watch-store.ts';
import { openSqliteWalletLedger } from '../../src/sqlite/wallet-ledger.ts';
import { startCheckUpstream, upstreamRunners } from './check-upstream.ts';

export interface SiteState {
  probeOk: boolean;
  /** The next this many probes fail (a flaky timeout), whatever `probeOk` says. */
  probeFailsNext: number;
  /** CT holds a successor the site does not serve (`cert.renewed_not_deployed`, judged on the served chain). */
  renewedNotDeployed: boolean;
  /** Share of the certificate's lifetime left at the check. */
  lifetimeLeft: number;
  /** The check fails (502) altogether. */
  failing: boolean;
  /** Every check made (the paid call's and the scheduler's, confirmations too): when, and whether its probe failed. */
  looks?: { at: number; probeOk: boolean }[];
}

export interface WatchService {
  chain: LocalChain;
  config: Config;
  url: URL;
  site: SiteState;
  store: WatchStore;
  runtime: WatchRuntime;
  /** Addresses the webhook sender connected to. */
  connections: string[];
  /** What names resolve to for the webhook sender (default 127.0.0.1). */
  resolves: Map<string, string[]>;
  /** A funded payer, with its key (for the CLI's X402_PRIVATE_KEY). */
  newPayer(atomicAmount: bigint): Promise<PrivateKeyAccount & { privateKey: `0x${string}` }>;
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;

/** The published site-health example with the probe and certificate set from `site`. */
export function siteHealthFor(
  site: Pick<SiteState, 'probeOk' | 'lifetimeLeft'> & Partial<SiteState>,
  now = new Date(),
): SiteHealthResult {
  const result = structuredClone(outputExampleFor('v1_site_health')) as SiteHealthResult;
  result.checked_at = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  result.findings = [];
  for (const section of [result.cert, result.dns, result.expiry])
    if ('findings' in section) section.findings = [];
  if ('live_probe' in result.cert) {
    const probeOk = site.probeOk && (site.probeFailsNext ?? 0) <= 0;
    result.cert.live_probe.ok = probeOk;
    // A probe that timed out read no chain: the verdict falls back to CT's newest certificate, and
    // the failure, not the certificate's, is the check's `probe.failed` finding.
    if (!probeOk) {
      result.cert.judged.source = 'ct_newest';
      result.cert.judged.served_chain = 'not_read';
      result.cert.live_probe.error = 'timeout';
      result.cert.findings.push({ code: 'probe.failed', severity: 'warning', message: 'timeout' });
    } else if (site.renewedNotDeployed) {
      result.cert.findings.push({ code: 'cert.renewed_not_deployed', severity: 'warning', message: 'x' });
    }
    if (result.cert.certificate) {
      const lifetime = 45 * DAY_MS;
      result.cert.certificate.not_before = new Date(
        now.getTime() - lifetime * (1 - site.lifetimeLeft),
      ).toISOString();
      result.cert.certificate.not_after = new Date(
        now.getTime() + lifetime * site.lifetimeLeft,
      ).toISOString();
    }
  }
  return result;
}

export async function startWatchService(env: Record<string, string> = {}): Promise<WatchService> {
  const chain = await startLocalChain();
  const upstream = await startCheckUpstream();
  const dir = mkdtempSync(join(tmpdir(), 'watches-'));
  const loaded = loadConfig({
    LOG_LEVEL: 'silent',
    PROBE_ALLOW_PRIVATE: 'true',
    WATCH_INTERVAL_S: '1',
    WATCH_CONFIRM_S: '1',
    WATCH_SECRET_KEY: 'watch-service-test-key-0123456789abcdef',
    WATCH_DB_PATH: join(dir, 'watches.db'),
    ...env,
  });
  let config: Config = { ...loaded, x402: { ...loaded.x402, payTo: chain.payTo } };
  const logger = pino({ level: 'silent' });
  const site: SiteState = {
    probeOk: true,
    probeFailsNext: 0,
    renewedNotDeployed: false,
    lifetimeLeft: 0.5,
    failing: false,
    looks: [],
  };
  const connections: string[] = [];
  const resolves = new Map<string, string[]>();

  let handle: (request: Request) => Response | Promise<Response> = () => new Response(null, { status: 503 });
  const server = serve({ fetch: (request) => handle(request), hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  config = { ...config, publicBaseUrl: url.origin };

  const recording: SocketConnector = (target) => {
    connections.push(target.address);
    return connectSocket(target);
  };
  const resolve = async (name: string) => ({ ok: true as const, value: resolves.get(name) ?? ['127.0.0.1'] });
  const publicFetch = createPublicFetch({
    resolve,
    // The receiver is on loopback; metadata addresses stay refused even so.
    allowPrivate: true,
    transport: createNodeTransport(recording),
  });
  const store = openSqliteWatchStore(config.watches.dbPath);
  const ledger = openSqliteWalletLedger(config.watches.dbPath);
  const secrets = createWatchSecrets(config.watches.secretKey ?? '');
  const runtime = storeWatchRuntime(
    store,
    { maxSleepMs: 200 },
    undefined,
    ledger,
  )({
    config,
    check: async () => {
      if (site.failing) return { type: 'upstream_failed', upstreams: [{ name: 'crt.sh', error: 'timeout' }] };
      const result = siteHealthFor(site);
      site.probeFailsNext -= 1;
      site.looks?.push({ at: Date.now(), probeOk: 'live_probe' in result.cert && result.cert.live_probe.ok });
      return { type: 'result', result };
    },
    send: createWebhookSender(publicFetch),
    secrets,
    logger,
    metrics: noWatchMetrics,
  });
  runtime.start();
  const payments = createPayments({ config, logger, local: chain });
  const app = createApp({
    config,
    runners: upstreamRunners(upstream),
    logger,
    payments,
    watches: { service: runtime.service, secrets, ledger, reach: webhookReach(resolve, true) },
  });
  handle = (request) => app.fetch(request);

  return {
    chain,
    config,
    url,
    site,
    store,
    runtime,
    connections,
    resolves,
    async newPayer(atomicAmount) {
      const privateKey = generatePrivateKey();
      const account = Object.assign(privateKeyToAccount(privateKey), { privateKey });
      if (atomicAmount > 0n) await chain.fund(account.address, atomicAmount);
      return account;
    },
    async close() {
      await runtime.stop();
      ledger.close();
      await new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      });
      await upstream.close();
      await chain.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
