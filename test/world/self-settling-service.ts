/**
 * The service in self-settlement mode as deployed, on loopback: the closed world for its upstreams,
 * a local chain (Base 8453, test USDC), and per service process an RPC fault proxy in front of the
 * chain and a fresh settler key. The service only ever sees the proxy (`X402_RPC_URL`); tests read
 * balances and the mempool from the chain directly.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestClient, http, publicActions } from 'viem';
import { buildWorker, startLocalEdge, type WorkerBundle } from '../../scripts/local-edge.ts';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { baseChainAt } from '../../src/payments/chain/base-chain.ts';
import { type LocalChain, startLocalChain } from '../../src/payments/chain/local-chain.ts';
import { CLIENT_HEADER, EDGE_CLIENT_GONE_ENTRY_NAME, reportClientGone } from './edge-client-gone.ts';
import { startWorld, type World } from './index.ts';
import { type RpcFaultProxy, startRpcFaultProxy } from './rpc-fault-proxy.ts';
import { onFreePorts, type ServiceProcess, startServiceProcess } from './service-process.ts';
import { type CaFile, writeCaFile } from './test-ca.ts';

/** ETH (wei) a fresh settler key gets for gas. */
const SETTLER_GAS_FUNDS = 10n ** 20n;

export interface SettlementWorld {
  world: World;
  chain: LocalChain;
  /** A new payer key holding `atomicAmount` test USDC. */
  newPayer(atomicAmount: bigint): Promise<PrivateKeyAccount>;
  /** Transactions in the chain's mempool that can still be mined (not queued behind a nonce gap). */
  minablePending(): Promise<number>;
  /**
   * The chain's mempool in one line, for a failure's message: the latest block, and per sender the
   * nonces pending (minable) and queued (behind a gap).
   */
  describeMempool(): Promise<string>;
  /**
   * Starts a service process in self mode behind its own fault proxy, with a fresh settler key or
   * `options.settlerPrivateKey` (instances sharing one wallet), and `options.env` on top.
   */
  startService(options?: ServiceOptions): Promise<SelfSettlingService>;
  close(): Promise<void>;
}

export interface SelfSettlingService {
  proxy: RpcFaultProxy;
  process: ServiceProcess;
  /** Strings that must never reach a client or a log line: the RPC URL and the settler key. */
  secrets: { rpcUrl: string; settlerPrivateKey: `0x${string}` };
  /**
   * Only where the runtime cannot see a client leave by itself (the Worker in local workerd): tells
   * the service that the client whose requests carry `headers` went away.
   */
  clientGone?: { headers: (id: string) => Record<string, string>; report: (id: string) => Promise<boolean> };
  close(): Promise<void>;
}

export interface ServiceOptions {
  settlerPrivateKey?: `0x${string}`;
  env?: Record<string, string>;
}

/**
 * Where the service runs: `node src/main.ts`, or the Worker in local workerd (`scripts/local-edge.ts`),
 * bundled from the test-only entry that adds the client-gone hook (`edge-client-gone-worker.ts`).
 */
export type Runtime = 'node' | 'edge';

const EDGE_CLIENT_GONE_ENTRY = fileURLToPath(new URL(EDGE_CLIENT_GONE_ENTRY_NAME, import.meta.url));

export async function startSettlementWorld(
  options: { blockTimeSeconds?: number; runtime?: Runtime } = {},
): Promise<SettlementWorld> {
  const { runtime = 'node' } = options;
  const [world, chain] = await Promise.all([
    startWorld(),
    startLocalChain(
      options.blockTimeSeconds === undefined ? {} : { blockTimeSeconds: options.blockTimeSeconds },
    ),
  ]);
  const ca: CaFile = await writeCaFile(world.site.caPem);
  // Each Node process its own embedded stores (watches, payment records), as each host has its own
  // disk: processes of a world never read each other's settling records. A test that restarts a
  // process on the same files passes its WATCH_DB_PATH.
  const dataDir = await mkdtemp(join(tmpdir(), 'settlement-world-'));
  let processes = 0;
  const anvil = createTestClient({
    mode: 'anvil',
    chain: baseChainAt(chain.rpcUrl),
    transport: http(chain.rpcUrl.href),
  }).extend(publicActions);
  const services = new Set<SelfSettlingService>();
  /** The Worker, bundled once per world. */
  let bundle: Promise<WorkerBundle> | undefined;

  return {
    world,
    chain,
    async newPayer(atomicAmount) {
      const account = privateKeyToAccount(generatePrivateKey());
      await chain.fund(account.address, atomicAmount);
      return account;
    },
    async minablePending() {
      const status = await anvil.getTxpoolStatus();
      return status.pending;
    },
    async describeMempool() {
      const [block, content] = await Promise.all([anvil.getBlockNumber(), anvil.getTxpoolContent()]);
      const nonces = (bySender: Record<string, Record<string, unknown>>) =>
        Object.entries(bySender)
          .map(([sender, byNonce]) => `${sender.slice(0, 8)}: ${Object.keys(byNonce).join(',')}`)
          .join('; ') || 'none';
      return `block ${block}, pending ${nonces(content.pending)}, queued ${nonces(content.queued)}`;
    },
    async startService({ settlerPrivateKey = generatePrivateKey(), env: extra = {} } = {}) {
      await anvil.setBalance({
        address: privateKeyToAccount(settlerPrivateKey).address,
        value: SETTLER_GAS_FUNDS,
      });
      const proxy = await startRpcFaultProxy(chain.rpcUrl);
      const env = {
        ...world.env,
        X402_RPC_URL: proxy.url.href,
        X402_SETTLER_PRIVATE_KEY: settlerPrivateKey,
        X402_PAY_TO: chain.payTo,
        // Every case's unpaid challenges and MCP connections come from one loopback address; the
        // free-work limit has its own tests, and here it would only starve the cases.
        RATE_LIMIT_BURST: '0',
        WATCH_DB_PATH: join(dataDir, `process-${(processes += 1)}`, 'watches.db'),
        ...extra,
      };
      const started =
        runtime === 'node'
          ? startServiceProcess({ ...env, NODE_EXTRA_CA_CERTS: ca.path })
          : startEdgeProcess(
              env,
              world.site.caPem,
              (bundle ??= buildWorker(undefined, EDGE_CLIENT_GONE_ENTRY)),
            );
      const process = await started.catch(async (error: unknown) => {
        await proxy.close();
        throw error;
      });
      const service: SelfSettlingService = {
        proxy,
        process,
        secrets: { rpcUrl: proxy.url.href, settlerPrivateKey },
        ...(runtime === 'edge'
          ? {
              clientGone: {
                headers: (id: string) => ({ [CLIENT_HEADER]: id }),
                report: (id: string) => reportClientGone(process.url, id),
              },
            }
          : {}),
        async close() {
          services.delete(service);
          proxy.release();
          await process.stop();
          await proxy.close();
        },
      };
      services.add(service);
      return service;
    },
    async close() {
      await Promise.all([...services].map((service) => service.close()));
      await Promise.all([world.close(), chain.stop(), ca.remove()]);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The Worker in local workerd (one instance) as a service process: its console is the output, and
 * it is alive until stopped (workerd has no signals of its own to test).
 */
async function startEdgeProcess(
  variables: Record<string, string>,
  extraCa: string,
  bundle: Promise<WorkerBundle>,
): Promise<ServiceProcess> {
  let output = '';
  const built = await bundle;
  const { edge, port } = await onFreePorts(1, async ([port]) => ({
    port,
    edge: await startLocalEdge({
      variables: { ...variables, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
      host: '127.0.0.1',
      ports: [port as number],
      bundle: built,
      extraCa,
      output: (line) => (output += `${line}\n`),
    }),
  }));
  let stopped: Promise<void> | undefined;
  let exit: (code: number | null) => void = () => {};
  const exited = new Promise<number | null>((resolve) => (exit = resolve));
  const stop = () => (stopped ??= edge.stop().then(() => exit(0)));
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    pid: 0,
    output: () => output,
    alive: () => stopped === undefined,
    exited,
    signal: () => void stop(),
    stop,
  };
}
