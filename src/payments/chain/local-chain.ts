/**
 * The embedded local chain for development and tests: an anvil process on 127.0.0.1 that answers as
 * Base (chain id 8453), with the EIP-3009 test token at the USDC address and Multicall3 installed.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import type { Logger } from 'pino';
import { createPublicClient, createTestClient, createWalletClient, http, toHex } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { baseChainAt } from './base-chain.ts';
import { stuckTransactionRepair } from './stuck-transactions.ts';
import {
  BASE_USDC_ADDRESS,
  MULTICALL3_ADDRESS,
  MULTICALL3_RUNTIME,
  TEST_USDC_ABI,
  TEST_USDC_RUNTIME,
} from './local-contracts.ts';

/** The chain id anvil is started with: Base mainnet, so the SDK's unmodified defaults apply. */
export const LOCAL_CHAIN_ID = 8453;

/** USDC the demo payer holds after start, in atomic units (6 decimals): 100 USDC. */
export const DEMO_PAYER_FUNDS_ATOMIC = 100_000_000n;

const ANVIL_START_TIMEOUT_MS = 15_000;
const ANVIL_POLL_INTERVAL_MS = 25;
const ANVIL_STOP_GRACE_MS = 3_000;
const ANVIL_START_ATTEMPTS = 3;
const STDERR_KEEP_BYTES = 4_096;

// anvil's default dev mnemonic; passed explicitly so the derived keys below are correct by construction.
const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
const SETTLER_INDEX = 0;
const PAY_TO_INDEX = 1;
const DEMO_PAYER_INDEX = 2;
// A separate key mints, so funding never races the settler's transaction nonces.
const FAUCET_INDEX = 9;
/** Anvil mines a mint as it arrives: one not mined by then never will be. */
const MINT_RECEIPT_TIMEOUT_MS = 30_000;
const MINT_RECEIPT_POLL_MS = 50;
/** How often the pool is looked at for a transaction anvil left waiting though it is next (`stuck-transactions.ts`). */
const STUCK_LOOK_MS = 1_000;

/** An address with its private key (a public anvil dev key: never use it on a real network). */
export interface DevAccount {
  address: `0x${string}`;
  privateKey: `0x${string}`;
}

/** A running local chain. Call `stop()` when done; the process is also killed when Node exits. */
export interface LocalChain {
  rpcUrl: URL;
  chainId: 8453;
  /** The test token's address: the Base USDC address. */
  asset: `0x${string}`;
  /** Recipient of payments (dev account 1). */
  payTo: `0x${string}`;
  /** Pays gas for settlements (dev account 0, funded with ETH by anvil). */
  settler: DevAccount;
  /** A buyer holding `DEMO_PAYER_FUNDS_ATOMIC` test USDC at start (dev account 2). */
  demoPayer: DevAccount;
  /** Test-USDC balance of `address`, in atomic units. */
  balanceOf(address: `0x${string}`): Promise<bigint>;
  /** Mints `atomicAmount` test USDC to `address`; resolves once the mint is mined. */
  fund(address: `0x${string}`, atomicAmount: bigint): Promise<void>;
  /** The anvil process id (diagnostics, and tests that check it is gone after `stop()`). */
  pid: number;
  /** Kills anvil; resolves when the process has exited. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options for {@link startLocalChain}. */
export interface LocalChainOptions {
  logger?: Logger;
  /** Port on 127.0.0.1; default: a free port chosen at start. */
  port?: number;
  /** Mine a block every this many seconds (as Base does, 2) instead of each transaction at once. */
  blockTimeSeconds?: number;
}

/**
 * Path of the anvil executable in its platform package, `@foundry-rs/anvil-<os>-<arch>/bin/anvil`.
 * The project depends on that package directly (linux-amd64, the machines' platform) rather than on
 * the `@foundry-rs/anvil` wrapper: the wrapper's other-platform optional packages are missing from
 * the registry these machines reach, which breaks `npm ci`, and killing its Node shim would leave
 * the anvil child running anyway. On another platform, `npm install -D @foundry-rs/anvil-<os>-<arch>`.
 */
export function anvilBinaryPath(): string {
  const os = process.platform === 'win32' ? 'win32' : process.platform === 'darwin' ? 'darwin' : 'linux';
  const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
  const binary = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  return createRequire(import.meta.url).resolve(`@foundry-rs/anvil-${os}-${arch}/bin/${binary}`);
}

/** Starts anvil as Base (chain id 8453), installs the test contracts and funds the demo payer. */
export async function startLocalChain(options: LocalChainOptions = {}): Promise<LocalChain> {
  const { logger } = options;
  const node = await spawnAnvil(options.port, options.blockTimeSeconds);
  try {
    const chain = await provision(node);
    logger?.info({ rpcUrl: chain.rpcUrl.href, anvil_pid: node.pid }, 'local chain started');
    const stopRepairs = repairingStuckTransactions(node, logger);
    return {
      ...chain,
      stop: async () => {
        stopRepairs();
        await node.stop();
      },
    };
  } catch (error) {
    await node.stop();
    throw error;
  }
}

interface AnvilNode {
  pid: number;
  rpcUrl: URL;
  stop(): Promise<void>;
}

async function spawnAnvil(
  port: number | undefined,
  blockTimeSeconds: number | undefined,
): Promise<AnvilNode> {
  // A port chosen by probing can be taken by someone else before anvil binds it: try again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnAnvilOnce(port ?? (await freeLoopbackPort()), blockTimeSeconds);
    } catch (error) {
      if (port !== undefined || attempt >= ANVIL_START_ATTEMPTS) throw error;
    }
  }
}

async function spawnAnvilOnce(port: number, blockTimeSeconds: number | undefined): Promise<AnvilNode> {
  const rpcUrl = new URL(`http://127.0.0.1:${port}`);
  const args = ['--host', rpcUrl.hostname, '--port', String(port), '--chain-id', String(LOCAL_CHAIN_ID)];
  args.push('--mnemonic', DEV_MNEMONIC, '--silent');
  if (blockTimeSeconds !== undefined) args.push('--block-time', String(blockTimeSeconds));
  const child = spawn(anvilBinaryPath(), args, { stdio: ['ignore', 'ignore', 'pipe'] });

  let stderr = '';
  let spawnError: Error | undefined;
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEEP_BYTES);
  });
  let running = true;
  const killOnParentExit = () => child.kill('SIGKILL');
  process.on('exit', killOnParentExit);
  const exited = new Promise<void>((resolve) => {
    const done = () => {
      running = false;
      process.off('exit', killOnParentExit);
      resolve();
    };
    child.once('exit', done);
    // 'error' without a pid: the binary never started, so no 'exit' will follow.
    child.on('error', (error) => {
      spawnError = error;
      if (child.pid === undefined) done();
    });
  });
  // Neither the child nor its stderr pipe keeps Node alive; the 'exit' hook above reaps anvil.
  child.unref();
  (child.stderr as { unref?: () => void } | null)?.unref?.();

  const stop = async () => {
    if (!running) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), ANVIL_STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };
  const failure = (why: string) =>
    new Error(`anvil did not start on ${rpcUrl.host}: ${why}${stderr ? `: ${stderr.trim()}` : ''}`);

  const probe = createPublicClient({ transport: http(rpcUrl.href, { retryCount: 0 }) });
  const deadline = performance.now() + ANVIL_START_TIMEOUT_MS;
  while (true) {
    if (!running)
      throw failure(spawnError ? String(spawnError) : `exited with ${child.exitCode ?? child.signalCode}`);
    if (performance.now() > deadline) {
      await stop();
      throw failure(`no answer within ${ANVIL_START_TIMEOUT_MS} ms`);
    }
    const chainId = await probe.getChainId().catch(() => undefined);
    if (chainId !== undefined) {
      if (chainId === LOCAL_CHAIN_ID && child.pid !== undefined) return { pid: child.pid, rpcUrl, stop };
      await stop();
      throw failure(`answered chain id ${chainId}`);
    }
    await new Promise((resolve) => setTimeout(resolve, ANVIL_POLL_INTERVAL_MS));
  }
}

async function provision(node: AnvilNode): Promise<LocalChain> {
  const chain = baseChainAt(node.rpcUrl);
  const transport = http(node.rpcUrl.href);
  const testClient = createTestClient({ mode: 'anvil', chain, transport });
  const publicClient = createPublicClient({ chain, transport });
  const faucet = createWalletClient({
    account: privateKeyToAccount(devAccount(FAUCET_INDEX).privateKey),
    chain,
    transport,
  });

  await testClient.setCode({ address: BASE_USDC_ADDRESS, bytecode: TEST_USDC_RUNTIME });
  await testClient.setCode({ address: MULTICALL3_ADDRESS, bytecode: MULTICALL3_RUNTIME });

  const mint = async (address: `0x${string}`, atomicAmount: bigint) => {
    const hash = await faucet.writeContract({
      address: BASE_USDC_ADDRESS,
      abi: TEST_USDC_ABI,
      functionName: 'mint',
      args: [address, atomicAmount],
    });
    const receipt = await publicClient
      .waitForTransactionReceipt({
        hash,
        timeout: MINT_RECEIPT_TIMEOUT_MS,
        pollingInterval: MINT_RECEIPT_POLL_MS,
      })
      .catch(async (error: unknown) => {
        const pool = await testClient.getTxpoolStatus().catch(() => undefined);
        throw new Error(
          `mint to ${address} (tx ${hash}) not mined within ${MINT_RECEIPT_TIMEOUT_MS} ms; txpool ${JSON.stringify(pool)}`,
          { cause: error },
        );
      });
    if (receipt.status !== 'success') throw new Error(`mint to ${address} reverted (tx ${hash})`);
  };
  // Mints go out one at a time, each at the faucet's pending count: concurrent mints on a shared
  // nonce counter could leave a nonce unsent (or sent twice) and every later mint queued behind it.
  let minting: Promise<unknown> = Promise.resolve();
  const fund = (address: `0x${string}`, atomicAmount: bigint) => {
    const minted = minting.then(() => mint(address, atomicAmount));
    minting = minted.catch(() => undefined);
    return minted;
  };
  const balanceOf = (address: `0x${string}`) =>
    publicClient.readContract({
      address: BASE_USDC_ADDRESS,
      abi: TEST_USDC_ABI,
      functionName: 'balanceOf',
      args: [address],
    });

  const demoPayer = devAccount(DEMO_PAYER_INDEX);
  await fund(demoPayer.address, DEMO_PAYER_FUNDS_ATOMIC);
  return {
    rpcUrl: node.rpcUrl,
    chainId: LOCAL_CHAIN_ID,
    asset: BASE_USDC_ADDRESS,
    payTo: devAccount(PAY_TO_INDEX).address,
    settler: devAccount(SETTLER_INDEX),
    demoPayer,
    balanceOf,
    fund,
    pid: node.pid,
    stop: node.stop,
  };
}

/** Looks for stuck transactions every STUCK_LOOK_MS until the returned function is called. */
function repairingStuckTransactions(node: AnvilNode, logger: Logger | undefined): () => void {
  const repair = stuckTransactionRepair(
    createTestClient({ mode: 'anvil', transport: http(node.rpcUrl.href) }),
  );
  let looking = false;
  const timer = setInterval(() => {
    if (looking) return;
    looking = true;
    repair()
      .then((accounts) => {
        if (accounts.length > 0)
          logger?.info({ accounts }, 'local chain: transactions anvil left waiting handed in again');
      })
      .catch(() => undefined)
      .finally(() => (looking = false));
  }, STUCK_LOOK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

function devAccount(addressIndex: number): DevAccount {
  const account = mnemonicToAccount(DEV_MNEMONIC, { addressIndex });
  const key = account.getHdKey().privateKey;
  if (!key) throw new Error(`no private key derived for dev account ${addressIndex}`);
  return { address: account.address, privateKey: toHex(key) };
}

async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP port assigned');
  return address.port;
}
