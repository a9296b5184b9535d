/**
 * The in-process facilitator (local-chain and self modes) against a real anvil: payloads built by the
 * official x402 client verify and settle, move exactly the amount, fail with specific reasons (each
 * check of the exact scheme, the window on the chain's time), and 20 concurrent settlements from one
 * settler key all land.
 */

import { x402Client } from '@x402/core/client';
import type { FacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { createPublicClient, createTestClient, http, parseEther, serializeErc6492Signature } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { baseChainAt } from '../../../src/payments/chain/base-chain.ts';
import { createFacilitatorClient } from '../../../src/payments/facilitator/facilitator.ts';
import { type LocalChain, startLocalChain } from '../../../src/payments/chain/local-chain.ts';
import { type AuthorizationFields, authorizationOf, resigned } from '../../world/payer-client.ts';

const PRICE_ATOMIC = 10_000n; // $0.01 in USDC atomic units
const CONCURRENT_SETTLEMENTS = 20;

let chain: LocalChain;
let facilitator: FacilitatorClient;
let requirements: PaymentRequirements;

const publicClient = () =>
  createPublicClient({ chain: baseChainAt(chain.rpcUrl), transport: http(chain.rpcUrl.href) });

async function fundedPayer(atomic: bigint): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  if (atomic > 0n) await chain.fund(account.address, atomic);
  return account;
}

/** A payment payload exactly as the official x402 v2 client builds it from a 402 challenge. */
function pay(account: PrivateKeyAccount): Promise<PaymentPayload> {
  const challenge: PaymentRequired = {
    x402Version: 2,
    resource: { url: 'http://127.0.0.1/v1/cert/example.com' },
    accepts: [requirements],
  };
  return new x402Client()
    .register('eip155:8453', new ExactEvmScheme(account))
    .createPaymentPayload(challenge);
}

beforeAll(async () => {
  chain = await startLocalChain();
  facilitator = createFacilitatorClient(loadConfig({}), chain);
  requirements = {
    scheme: 'exact',
    network: 'eip155:8453',
    amount: PRICE_ATOMIC.toString(),
    asset: chain.asset,
    payTo: chain.payTo,
    maxTimeoutSeconds: 300,
    extra: { name: 'USD Coin', version: '2' },
  };
});

afterAll(async () => {
  await chain?.stop();
});

describe('createFacilitatorClient (local-chain mode)', () => {
  it('refuses local-chain mode without a started LocalChain', () => {
    expect(() => createFacilitatorClient(loadConfig({}))).toThrow(/needs a started LocalChain/);
  });

  it('reports exact on eip155:8453 with the settler as signer', async () => {
    const supported = await facilitator.getSupported();
    expect(supported.kinds).toContainEqual(
      expect.objectContaining({ x402Version: 2, scheme: 'exact', network: 'eip155:8453' }),
    );
    expect(Object.values(supported.signers).flat()).toContain(chain.settler.address);
  });

  it('verifies and settles an official client payload, moving exactly the price', async () => {
    const payer = await fundedPayer(1_000_000n);
    const payload = await pay(payer);
    const payToBefore = await chain.balanceOf(chain.payTo);

    const verified = await facilitator.verify(payload, requirements);
    expect(verified).toMatchObject({ isValid: true, payer: payer.address });
    // Verify alone moves nothing.
    expect(await chain.balanceOf(payer.address)).toBe(1_000_000n);

    const settled = await facilitator.settle(payload, requirements);
    expect(settled).toMatchObject({ success: true, network: 'eip155:8453', payer: payer.address });
    expect(await chain.balanceOf(payer.address)).toBe(1_000_000n - PRICE_ATOMIC);
    expect(await chain.balanceOf(chain.payTo)).toBe(payToBefore + PRICE_ATOMIC);
    const receipt = await publicClient().getTransactionReceipt({
      hash: settled.transaction as `0x${string}`,
    });
    expect(receipt.from.toLowerCase()).toBe(chain.settler.address.toLowerCase());
  });

  it('rejects a replay of a settled payload with the specific reason (read from the token)', async () => {
    const payer = await fundedPayer(1_000_000n);
    const payload = await pay(payer);
    expect((await facilitator.settle(payload, requirements)).success).toBe(true);

    expect(await facilitator.verify(payload, requirements)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_nonce_already_used',
    });
    expect(await facilitator.settle(payload, requirements)).toMatchObject({ success: false });
    expect(await chain.balanceOf(payer.address)).toBe(1_000_000n - PRICE_ATOMIC);
  });

  it('rejects a payer without funds with invalid_exact_evm_insufficient_balance', async () => {
    const payer = await fundedPayer(PRICE_ATOMIC - 1n);
    expect(await facilitator.verify(await pay(payer), requirements)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_insufficient_balance',
    });
  });

  it('refuses what the signature does not buy, in verify and in settle, moving nothing', async () => {
    const payer = await fundedPayer(1_000_000n);
    const payload = await pay(payer);
    const signature = (payload.payload as { signature: `0x${string}` }).signature;
    const flipped =
      `${signature.slice(0, 10)}${signature[10] === 'a' ? 'b' : 'a'}${signature.slice(11)}` as const;
    const elsewhere = privateKeyToAccount(generatePrivateKey()).address;
    const cases: [string, PaymentPayload, PaymentRequirements, string][] = [
      [
        'another recipient',
        payload,
        { ...requirements, payTo: elsewhere },
        'invalid_exact_evm_recipient_mismatch',
      ],
      [
        'another price',
        payload,
        { ...requirements, amount: '20000' },
        'invalid_exact_evm_payload_authorization_value_mismatch',
      ],
      [
        'another network',
        { ...payload, accepted: { ...payload.accepted, network: 'eip155:1' } },
        requirements,
        'invalid_exact_evm_network_mismatch',
      ],
      [
        'no EIP-712 domain',
        payload,
        { ...requirements, extra: {} },
        'invalid_exact_evm_missing_eip712_domain',
      ],
      [
        'another token name',
        payload,
        { ...requirements, extra: { name: 'USDC', version: '2' } },
        'invalid_exact_evm_signature',
      ],
      [
        'a tampered signature',
        { ...payload, payload: { ...payload.payload, signature: flipped } },
        requirements,
        'invalid_exact_evm_signature',
      ],
      [
        'a counterfactual wallet of a factory not allowed',
        {
          ...payload,
          payload: {
            ...payload.payload,
            signature: serializeErc6492Signature({ address: elsewhere, data: '0x1234', signature }),
          },
        },
        requirements,
        'eip6492_factory_not_allowed',
      ],
    ];
    for (const [what, candidate, terms, reason] of cases) {
      expect(await facilitator.verify(candidate, terms), what).toMatchObject({
        isValid: false,
        invalidReason: reason,
      });
    }
    // Settle repeats every check the token's own would not make (it takes any valid signature).
    for (const [what, candidate, terms] of cases.slice(0, 2)) {
      expect(await facilitator.settle(candidate, terms), what).toMatchObject({
        success: false,
        transaction: '',
      });
    }
    expect(await chain.balanceOf(payer.address)).toBe(1_000_000n);
  });

  it("judges the window on the chain's time: expired, not yet valid, good", async () => {
    const payer = await fundedPayer(1_000_000n);
    const payload = await pay(payer);
    const chainNow = (await publicClient().getBlock({ blockTag: 'pending' })).timestamp;
    const within = (validAfter: bigint, validBefore: bigint): Promise<PaymentPayload> =>
      resigned(payer, payload, {
        ...authorizationOf(payload),
        validAfter: String(validAfter),
        validBefore: String(validBefore),
      } satisfies AuthorizationFields);
    expect(await facilitator.verify(await within(chainNow - 60n, chainNow + 3n), requirements)).toMatchObject(
      {
        isValid: false,
        invalidReason: 'invalid_exact_evm_payload_authorization_valid_before',
      },
    );
    expect(
      await facilitator.verify(await within(chainNow + 60n, chainNow + 120n), requirements),
    ).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_payload_authorization_valid_after',
    });
    const good = await within(chainNow - 60n, chainNow + 40n);
    expect(await facilitator.verify(good, requirements)).toMatchObject({ isValid: true });
    expect(await facilitator.settle(good, requirements)).toMatchObject({ success: true });
    expect(await chain.balanceOf(payer.address)).toBe(1_000_000n - PRICE_ATOMIC);
  });

  it(`settles ${CONCURRENT_SETTLEMENTS} concurrent payments from one settler key without nonce collisions`, async () => {
    const payer = await fundedPayer(PRICE_ATOMIC * BigInt(CONCURRENT_SETTLEMENTS));
    const payloads = await Promise.all(Array.from({ length: CONCURRENT_SETTLEMENTS }, () => pay(payer)));
    expect(new Set(payloads.map((p) => p.payload.signature)).size).toBe(CONCURRENT_SETTLEMENTS);
    const payToBefore = await chain.balanceOf(chain.payTo);

    const results = await Promise.all(payloads.map((payload) => facilitator.settle(payload, requirements)));

    expect(results.filter((r) => !r.success)).toEqual([]);
    expect(new Set(results.map((r) => r.transaction)).size).toBe(CONCURRENT_SETTLEMENTS);
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    expect(await chain.balanceOf(chain.payTo)).toBe(
      payToBefore + PRICE_ATOMIC * BigInt(CONCURRENT_SETTLEMENTS),
    );
  });
});

describe('createFacilitatorClient (self mode)', () => {
  it('settles on X402_RPC_URL with gas paid by X402_SETTLER_PRIVATE_KEY', async () => {
    const settlerKey = generatePrivateKey();
    const settler = privateKeyToAccount(settlerKey);
    const testClient = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl.href) });
    await testClient.setBalance({ address: settler.address, value: parseEther('1') });
    const self = createFacilitatorClient(
      loadConfig({
        X402_RPC_URL: chain.rpcUrl.href,
        X402_SETTLER_PRIVATE_KEY: settlerKey,
        X402_PAY_TO: chain.payTo,
      }),
    );
    const payer = await fundedPayer(PRICE_ATOMIC);

    const settled = await self.settle(await pay(payer), requirements);

    expect(settled).toMatchObject({ success: true, payer: payer.address });
    const receipt = await publicClient().getTransactionReceipt({
      hash: settled.transaction as `0x${string}`,
    });
    expect(receipt.from.toLowerCase()).toBe(settler.address.toLowerCase());
    expect(await chain.balanceOf(payer.address)).toBe(0n);
  });
});
