/**
 * startLocalChain: a real anvil answering as Base 8453 with the test token at the USDC address,
 * Multicall3 at its canonical address, a funded demo payer, and no process left after stop(); a
 * transaction anvil leaves waiting though its nonce is next gets mined.
 */
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  http,
  type PublicClient,
  parseAbi,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseChainAt } from '../../../src/payments/chain/base-chain.ts';
import {
  anvilBinaryPath,
  DEMO_PAYER_FUNDS_ATOMIC,
  type LocalChain,
  startLocalChain,
} from '../../../src/payments/chain/local-chain.ts';
import {
  BASE_USDC_ADDRESS,
  MULTICALL3_ADDRESS,
  TEST_USDC_ABI,
} from '../../../src/payments/chain/local-contracts.ts';
import { stuckTransactionRepair } from '../../../src/payments/chain/stuck-transactions.ts';
import { waitFor } from '../../support/wait-for.ts';
import { startLoopbackServer } from '../../world/loopback-server.ts';

const MULTICALL3_ABI = parseAbi([
  'struct Call { address target; bytes callData; }',
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function tryAggregate(bool requireSuccess, Call[] calls) payable returns (Result[] returnData)',
  'function aggregate3(Call3[] calls) payable returns (Result[] returnData)',
  'function aggregate(Call[] calls) payable returns (uint256 blockNumber, bytes[] returnData)',
]);

let chain: LocalChain;
let client: PublicClient;

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  chain = await startLocalChain();
  client = createPublicClient({
    chain: baseChainAt(chain.rpcUrl),
    transport: http(chain.rpcUrl.href),
  }) as PublicClient;
});

afterAll(async () => {
  await chain?.stop();
});

describe('startLocalChain', () => {
  it('runs the anvil binary from the platform package, not the npm shim', () => {
    expect(anvilBinaryPath()).toMatch(/@foundry-rs[\\/]anvil-[a-z0-9]+-[a-z0-9]+[\\/]bin[\\/]anvil(\.exe)?$/);
  });

  it('listens on loopback and answers chain id 8453', async () => {
    expect(chain.rpcUrl.hostname).toBe('127.0.0.1');
    expect(chain.chainId).toBe(8453);
    expect(await client.getChainId()).toBe(8453);
  });

  it('has the test token at the USDC address answering USD Coin / 2', async () => {
    expect(chain.asset).toBe(BASE_USDC_ADDRESS);
    const read = (functionName: 'name' | 'version') =>
      client.readContract({ address: chain.asset, abi: TEST_USDC_ABI, functionName });
    expect([await read('name'), await read('version')]).toEqual(['USD Coin', '2']);
  });

  it('has a working Multicall3 at the canonical address (tryAggregate, aggregate3, aggregate)', async () => {
    const balanceCall = encodeFunctionData({
      abi: TEST_USDC_ABI,
      functionName: 'balanceOf',
      args: [chain.demoPayer.address],
    });
    const failingCall = encodeFunctionData({
      abi: TEST_USDC_ABI,
      functionName: 'mint',
      args: [chain.payTo, 0n],
    });
    const badTarget = { target: MULTICALL3_ADDRESS, callData: failingCall } as const;
    const good = { target: BASE_USDC_ADDRESS, callData: balanceCall } as const;

    const { result: tried } = await client.simulateContract({
      address: MULTICALL3_ADDRESS,
      abi: MULTICALL3_ABI,
      functionName: 'tryAggregate',
      args: [false, [good, badTarget]],
    });
    expect(tried.map((r) => r.success)).toEqual([true, false]);
    expect(BigInt(tried[0]?.returnData ?? '0x')).toBeGreaterThanOrEqual(DEMO_PAYER_FUNDS_ATOMIC);

    const { result: three } = await client.simulateContract({
      address: MULTICALL3_ADDRESS,
      abi: MULTICALL3_ABI,
      functionName: 'aggregate3',
      args: [[{ ...good, allowFailure: false }]],
    });
    expect(three[0]?.success).toBe(true);

    const {
      result: [blockNumber, data],
    } = await client.simulateContract({
      address: MULTICALL3_ADDRESS,
      abi: MULTICALL3_ABI,
      functionName: 'aggregate',
      args: [[good]],
    });
    expect(blockNumber).toBeGreaterThan(0n);
    expect(data[0]).toBe(three[0]?.returnData);
    await expect(
      client.simulateContract({
        address: MULTICALL3_ADDRESS,
        abi: MULTICALL3_ABI,
        functionName: 'tryAggregate',
        args: [true, [badTarget]],
      }),
    ).rejects.toThrow(/Multicall3: call failed/);
  });

  it('funds the demo payer with 100 USDC and fund() mints more', async () => {
    expect(await chain.balanceOf(chain.demoPayer.address)).toBe(100_000_000n);
    const before = await chain.balanceOf(chain.payTo);
    await Promise.all([chain.fund(chain.payTo, 5n), chain.fund(chain.payTo, 6n)]);
    expect(await chain.balanceOf(chain.payTo)).toBe(before + 11n);
  });

  it('mints asked for at once all land, and a mint that fails holds back none after it', async () => {
    const payers = Array.from({ length: 12 }, () => privateKeyToAccount(generatePrivateKey()).address);
    const minted = payers.map((address, i) =>
      // In the middle of the others, a mint the token refuses (the payee's balance would overflow).
      i === 6 ? chain.fund(chain.payTo, 2n ** 256n - 1n) : chain.fund(address, BigInt(i + 1)),
    );
    const settled = await Promise.allSettled(minted);
    expect(settled.map((one) => one.status)).toEqual(
      payers.map((_, i) => (i === 6 ? 'rejected' : 'fulfilled')),
    );
    const balances = await Promise.all(payers.map((address) => chain.balanceOf(address)));
    expect(balances).toEqual(payers.map((_, i) => (i === 6 ? 0n : BigInt(i + 1))));
  });

  it('gives distinct dev accounts for settler, payTo and demo payer, with keys that match', async () => {
    const { privateKeyToAccount } = await import('viem/accounts');
    expect(privateKeyToAccount(chain.settler.privateKey).address).toBe(chain.settler.address);
    expect(privateKeyToAccount(chain.demoPayer.privateKey).address).toBe(chain.demoPayer.address);
    expect(new Set([chain.settler.address, chain.payTo, chain.demoPayer.address]).size).toBe(3);
    expect(await client.getBalance({ address: chain.settler.address })).toBeGreaterThan(10n ** 18n);
  });
});

describe('a transaction anvil leaves waiting though its nonce is next', () => {
  const testClient = () => createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl.href) });

  /** A fresh account with ETH, and its 0-ETH transfer to itself signed at `nonce`. */
  async function accountSigning(nonce: number) {
    const account = privateKeyToAccount(generatePrivateKey());
    await testClient().setBalance({ address: account.address, value: 10n ** 18n });
    const wallet = createWalletClient({
      account,
      chain: baseChainAt(chain.rpcUrl),
      transport: http(chain.rpcUrl.href),
    });
    const request = await wallet.prepareTransactionRequest({
      to: account.address,
      value: 0n,
      gas: 21_000n,
      nonce,
    });
    return { address: account.address, raw: await wallet.signTransaction(request) };
  }

  it('is handed in again as it was signed, and mined', async () => {
    // Waiting for nonce 0; then the account's nonce becomes 1 without nonce 0 being mined: the
    // transaction is next but stays filed as waiting, as anvil leaves one that arrived mid-block.
    const { address, raw } = await accountSigning(1);
    const hash = await client.sendRawTransaction({ serializedTransaction: raw });
    await testClient().setNonce({ address, nonce: 1 });
    await testClient().mine({ blocks: 1 });
    await expect(client.sendRawTransaction({ serializedTransaction: raw })).rejects.toThrow(
      /already imported/,
    );
    expect(await client.getTransactionReceipt({ hash }).catch(() => null)).toBeNull();
    const receipt = await waitFor(() => client.getTransactionReceipt({ hash }).catch(() => undefined), {
      what: 'the stuck transaction mined',
      everyMs: 100,
    });
    expect(receipt.status).toBe('success');
    expect(await client.getTransactionCount({ address })).toBe(2);
  });

  it('leaves alone a transaction waiting behind a nonce not sent yet', async () => {
    const { address, raw } = await accountSigning(3);
    const hash = await client.sendRawTransaction({ serializedTransaction: raw });
    const look = stuckTransactionRepair(testClient());
    expect(await look()).not.toContain(address.toLowerCase());
    expect(await look()).not.toContain(address.toLowerCase());
    const { queued } = await testClient().getTxpoolContent();
    expect(queued[address.toLowerCase() as `0x${string}`]?.['3']?.hash).toBe(hash);
    expect(await client.getTransactionCount({ address })).toBe(0);
  });
});

describe('startLocalChain failures', () => {
  it("rejects with anvil's own reason when the requested port is taken", async () => {
    const occupant = await startLoopbackServer((_req, res) => {
      res.end();
    });
    try {
      const port = Number(occupant.url.port);
      await expect(startLocalChain({ port })).rejects.toThrow(
        `anvil did not start on 127.0.0.1:${port}: exited with 1: Error: Address already in use`,
      );
    } finally {
      await occupant.close();
    }
  });
});

// Last, on the file's one chain: afterAll's second stop() then checks that stopping twice is harmless.
describe('stop()', () => {
  it('kills anvil and resolves only once the process has exited', async () => {
    expect(processExists(chain.pid)).toBe(true);
    await chain.stop();
    expect(processExists(chain.pid)).toBe(false);
    const probe = createPublicClient({ transport: http(chain.rpcUrl.href, { retryCount: 0 }) });
    await expect(probe.getChainId()).rejects.toThrow();
  });
});
