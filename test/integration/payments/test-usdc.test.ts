/**
 * The EIP-3009 test token on a real anvil: authorizations signed with viem move value and emit the
 * events settlement looks for; every kind of bad authorization reverts with FiatToken's reason.
 */
import { authorizationTypes } from '@x402/evm';
import {
  concatHex,
  createPublicClient,
  createWalletClient,
  hashDomain,
  http,
  keccak256,
  type PublicClient,
  parseEventLogs,
  parseSignature,
  serializeSignature,
  toHex,
} from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseChainAt } from '../../../src/payments/chain/base-chain.ts';
import { type LocalChain, startLocalChain } from '../../../src/payments/chain/local-chain.ts';
import { BASE_USDC_ADDRESS, TEST_USDC_ABI } from '../../../src/payments/chain/local-contracts.ts';

// secp256k1 group order n (SEC 2 §2.4.1): s and n - s both verify, only s <= n/2 is canonical.
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const ONE_USDC = 1_000_000n;

const EXTRA_TYPES = {
  ReceiveWithAuthorization: authorizationTypes.TransferWithAuthorization,
  CancelAuthorization: [
    { name: 'authorizer', type: 'address' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

interface Authorization {
  from: `0x${string}`;
  to: `0x${string}`;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: `0x${string}`;
}

let chain: LocalChain;
let client: PublicClient;
let payer: PrivateKeyAccount;
let submitter: ReturnType<
  typeof createWalletClient<ReturnType<typeof http>, ReturnType<typeof baseChainAt>, PrivateKeyAccount>
>;
let nonceCounter = 0;

const domain = () =>
  ({ name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: BASE_USDC_ADDRESS }) as const;

const freshNonce = () => keccak256(toHex(`test-usdc nonce ${nonceCounter++}`));

async function chainNow(): Promise<bigint> {
  return (await client.getBlock()).timestamp;
}

async function authorization(overrides: Partial<Authorization> = {}): Promise<Authorization> {
  const now = await chainNow();
  return {
    from: payer.address,
    to: chain.payTo,
    value: ONE_USDC,
    validAfter: 0n,
    validBefore: now + 3_600n,
    nonce: freshNonce(),
    ...overrides,
  };
}

/** Signs with the EIP-712 types the x402 client itself uses, so the token is checked against the SDK. */
function sign(auth: Authorization, by: PrivateKeyAccount = payer) {
  return by.signTypedData({
    domain: domain(),
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: auth,
  });
}

function vrs(signature: `0x${string}`) {
  const { r, s, v } = parseSignature(signature);
  return [Number(v), r, s] as const;
}

const authArgs = (a: Authorization) => [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce] as const;

function simulateTransfer(auth: Authorization, signature: `0x${string}`) {
  return client.simulateContract({
    account: submitter.account,
    address: BASE_USDC_ADDRESS,
    abi: TEST_USDC_ABI,
    functionName: 'transferWithAuthorization',
    args: [...authArgs(auth), ...vrs(signature)],
  });
}

async function transfer(auth: Authorization, signature: `0x${string}`) {
  const { request } = await simulateTransfer(auth, signature);
  const hash = await submitter.writeContract(request);
  return client.waitForTransactionReceipt({ hash });
}

beforeAll(async () => {
  chain = await startLocalChain();
  const viemChain = baseChainAt(chain.rpcUrl);
  client = createPublicClient({ chain: viemChain, transport: http(chain.rpcUrl.href) }) as PublicClient;
  // The submitter pays gas only: EIP-3009 lets anyone relay the payer's signed authorization.
  submitter = createWalletClient({
    account: privateKeyToAccount(chain.settler.privateKey),
    chain: viemChain,
    transport: http(chain.rpcUrl.href),
  });
  payer = privateKeyToAccount(generatePrivateKey());
  await chain.fund(payer.address, 10n * ONE_USDC);
});

afterAll(async () => {
  await chain?.stop();
});

describe('TestUSDC metadata', () => {
  it('answers as USDC on Base: name, version, symbol, decimals', async () => {
    const read = (functionName: 'name' | 'version' | 'symbol' | 'decimals') =>
      client.readContract({ address: BASE_USDC_ADDRESS, abi: TEST_USDC_ABI, functionName });
    expect(await Promise.all([read('name'), read('version'), read('symbol'), read('decimals')])).toEqual([
      'USD Coin',
      '2',
      'USDC',
      6,
    ]);
  });

  it('computes the EIP-712 domain separator for chain 8453 at the USDC address', async () => {
    const separator = await client.readContract({
      address: BASE_USDC_ADDRESS,
      abi: TEST_USDC_ABI,
      functionName: 'DOMAIN_SEPARATOR',
    });
    const types = {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
    } as const;
    expect(separator).toBe(hashDomain({ domain: { ...domain(), chainId: 8453n }, types }));
  });
});

describe('transferWithAuthorization', () => {
  it('moves value with a (v, r, s) signature, emits Transfer and AuthorizationUsed, and uses up the nonce', async () => {
    const auth = await authorization({ value: 1_250_000n });
    const before = [await chain.balanceOf(payer.address), await chain.balanceOf(chain.payTo)] as const;
    const used = () =>
      client.readContract({
        address: BASE_USDC_ADDRESS,
        abi: TEST_USDC_ABI,
        functionName: 'authorizationState',
        args: [auth.from, auth.nonce],
      });
    expect(await used()).toBe(false);

    const receipt = await transfer(auth, await sign(auth));

    expect(receipt.status).toBe('success');
    const events = parseEventLogs({ abi: TEST_USDC_ABI, logs: receipt.logs });
    expect(events.map((e) => [e.eventName, e.args])).toEqual([
      ['AuthorizationUsed', { authorizer: payer.address, nonce: auth.nonce }],
      ['Transfer', { from: payer.address, to: chain.payTo, value: 1_250_000n }],
    ]);
    expect(await chain.balanceOf(payer.address)).toBe(before[0] - 1_250_000n);
    expect(await chain.balanceOf(chain.payTo)).toBe(before[1] + 1_250_000n);
    expect(await used()).toBe(true);
  });

  it('moves value with the bytes-signature overload', async () => {
    const auth = await authorization({ value: 7n });
    const before = await chain.balanceOf(chain.payTo);
    const hash = await submitter.writeContract({
      address: BASE_USDC_ADDRESS,
      abi: TEST_USDC_ABI,
      functionName: 'transferWithAuthorization',
      args: [...authArgs(auth), await sign(auth)],
    });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await chain.balanceOf(chain.payTo)).toBe(before + 7n);
  });

  it('rejects a reused nonce', async () => {
    const auth = await authorization();
    const signature = await sign(auth);
    await transfer(auth, signature);
    await expect(simulateTransfer(auth, signature)).rejects.toThrow(/authorization is used or canceled/);
  });

  it('rejects an expired authorization (validBefore in the past)', async () => {
    const auth = await authorization({ validBefore: (await chainNow()) - 1n });
    await expect(simulateTransfer(auth, await sign(auth))).rejects.toThrow(/authorization is expired/);
  });

  it('rejects an authorization that is not valid yet (validAfter in the future)', async () => {
    const auth = await authorization({ validAfter: (await chainNow()) + 600n });
    await expect(simulateTransfer(auth, await sign(auth))).rejects.toThrow(/authorization is not yet valid/);
  });

  it('rejects a signature by someone other than `from`', async () => {
    const auth = await authorization();
    const stranger = privateKeyToAccount(generatePrivateKey());
    await expect(simulateTransfer(auth, await sign(auth, stranger))).rejects.toThrow(/invalid signature/);
  });

  it('rejects a signature over different terms (value raised after signing)', async () => {
    const auth = await authorization();
    const signature = await sign(auth);
    await expect(simulateTransfer({ ...auth, value: auth.value + 1n }, signature)).rejects.toThrow(
      /invalid signature/,
    );
  });

  it('rejects the high-s twin of a valid signature (malleability)', async () => {
    const auth = await authorization();
    const { r, s, yParity } = parseSignature(await sign(auth));
    const twin = serializeSignature({
      r,
      s: toHex(SECP256K1_N - BigInt(s), { size: 32 }),
      yParity: 1 - yParity,
    });
    await expect(simulateTransfer(auth, twin)).rejects.toThrow(/invalid signature/);
    // The canonical signature still works, so the rejection above was about s alone.
    await expect(simulateTransfer(auth, await sign(auth))).resolves.toBeDefined();
  });

  it('rejects an unrecoverable signature even when `from` is the zero address', async () => {
    const auth = await authorization({ from: '0x0000000000000000000000000000000000000000' });
    // r = 0 is not a curve point: ecrecover returns the zero address, which must not count as `from`.
    const junk = concatHex([toHex(0n, { size: 32 }), toHex(1n, { size: 32 }), '0x1b']);
    const hash = submitter.writeContract({
      address: BASE_USDC_ADDRESS,
      abi: TEST_USDC_ABI,
      functionName: 'transferWithAuthorization',
      args: [...authArgs(auth), junk],
    });
    await expect(hash).rejects.toThrow(/invalid signature/);
  });

  it('rejects a transfer larger than the balance', async () => {
    const auth = await authorization({ value: (await chain.balanceOf(payer.address)) + 1n });
    await expect(simulateTransfer(auth, await sign(auth))).rejects.toThrow(/transfer amount exceeds balance/);
  });
});

describe('receiveWithAuthorization and cancelAuthorization', () => {
  it('lets only the payee submit a receive authorization', async () => {
    const auth = await authorization({ to: chain.settler.address, value: 3n });
    const signature = await payer.signTypedData({
      domain: domain(),
      types: EXTRA_TYPES,
      primaryType: 'ReceiveWithAuthorization',
      message: auth,
    });
    const receive = (account: `0x${string}`) =>
      client.simulateContract({
        account,
        address: BASE_USDC_ADDRESS,
        abi: TEST_USDC_ABI,
        functionName: 'receiveWithAuthorization',
        args: [...authArgs(auth), ...vrs(signature)],
      });
    await expect(receive(chain.payTo)).rejects.toThrow(/caller must be the payee/);
    await expect(receive(chain.settler.address)).resolves.toBeDefined();
  });

  it('cancels an unused authorization so it can no longer be used', async () => {
    const auth = await authorization();
    const transferSignature = await sign(auth);
    const cancelSignature = await payer.signTypedData({
      domain: domain(),
      types: EXTRA_TYPES,
      primaryType: 'CancelAuthorization',
      message: { authorizer: auth.from, nonce: auth.nonce },
    });
    const hash = await submitter.writeContract({
      address: BASE_USDC_ADDRESS,
      abi: TEST_USDC_ABI,
      functionName: 'cancelAuthorization',
      args: [auth.from, auth.nonce, ...vrs(cancelSignature)],
    });
    const receipt = await client.waitForTransactionReceipt({ hash });
    expect(parseEventLogs({ abi: TEST_USDC_ABI, logs: receipt.logs }).map((e) => e.eventName)).toEqual([
      'AuthorizationCanceled',
    ]);
    await expect(simulateTransfer(auth, transferSignature)).rejects.toThrow(
      /authorization is used or canceled/,
    );
  });
});
