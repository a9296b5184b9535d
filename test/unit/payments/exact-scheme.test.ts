/**
 * The exact scheme on a scripted signer. Verify: an account's own signature is recovered without
 * reading the payer's code, the transfer simulated while the asset's code is still being read (one
 * round trip); any other signature reads the payer's code first and is refused before any
 * simulation. Settle: the transaction is prepared while the transfer is simulated and sent only
 * once the simulation took it; the resource server settles once more when a receipt did not come,
 * and that second settle waits for the transaction already sent; it never sends another for the
 * same authorization.
 */
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { FacilitatorEvmSigner } from '@x402/evm';
import { authorizationTypes } from '@x402/evm';
import { encodeAbiParameters, encodeEventTopics, parseAbi } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ChainTimedExactScheme } from '../../../src/payments/facilitator/exact-scheme.ts';

const NETWORK = 'eip155:8453';
const ASSET = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const FROM = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as const;
const HASH = `0x${'aa'.repeat(32)}` as const;
const NOW_S = Math.floor(Date.now() / 1000);

const requirements: PaymentRequirements = {
  scheme: 'exact',
  network: NETWORK,
  asset: ASSET,
  amount: '10000',
  payTo: TO,
  maxTimeoutSeconds: 45,
  extra: { name: 'USD Coin', version: '2' },
};
const payload = {
  x402Version: 2,
  accepted: requirements,
  payload: {
    signature: `0x${'11'.repeat(64)}1b`,
    authorization: {
      from: FROM,
      to: TO,
      value: '10000',
      validAfter: '0',
      validBefore: String(NOW_S + 45),
      nonce: `0x${'22'.repeat(32)}`,
    },
  },
} as PaymentPayload;

/** The receipt of a transfer of the price from the payer to the recipient. */
const transferReceipt = {
  status: 'success',
  logs: [
    {
      address: ASSET,
      topics: encodeEventTopics({
        abi: parseAbi(['event Transfer(address indexed from, address indexed to, uint256 value)']),
        eventName: 'Transfer',
        args: { from: FROM, to: TO },
      }),
      data: encodeAbiParameters([{ type: 'uint256' }], [10_000n]),
    },
  ],
};

/** A signer whose receipt waits fail `failedWaits` times; it counts what it is asked. */
function scriptedSigner(failedWaits: number) {
  const asked = { sends: 0, waits: 0 };
  const signer = {
    getAddresses: () => [TO],
    getCode: async () => '0x',
    readContract: async () => undefined,
    verifyTypedData: async () => true,
    writeContract: async () => (asked.sends++, HASH),
    sendTransaction: async () => HASH,
    waitForTransactionReceipt: async () => {
      asked.waits += 1;
      if (asked.waits <= failedWaits) throw new Error('Timed out while waiting for transaction');
      return transferReceipt;
    },
  } as unknown as FacilitatorEvmSigner;
  return { signer, asked };
}

const clock = { now: () => Date.now(), refresh: async () => true };

/**
 * A payment of `asset` signed by a fresh account (or carrying `signature` instead), and a signer
 * that records what it is asked: the asset's code answers only once the simulation was asked (or
 * after a second, so a scheme asking in turn is slow rather than stuck).
 */
async function verifyWorld(asset: `0x${string}`, signature?: `0x${string}`) {
  const account = privateKeyToAccount(generatePrivateKey());
  const terms = { ...requirements, asset };
  const nonce = `0x${'33'.repeat(32)}` as const;
  const validBefore = NOW_S + 45;
  const authorization = {
    from: account.address,
    to: TO,
    value: '10000',
    validAfter: '0',
    validBefore: String(validBefore),
    nonce,
  };
  const signed =
    signature ??
    (await account.signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: asset },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: { ...authorization, value: 10_000n, validAfter: 0n, validBefore: BigInt(validBefore) },
    }));
  const asked: string[] = [];
  let simulated = () => {};
  const simulationAsked = new Promise<void>((resolve) => (simulated = resolve));
  const signer = {
    getAddresses: () => [TO],
    getCode: async ({ address }: { address: string }) => {
      if (address.toLowerCase() !== asset.toLowerCase()) return (asked.push('code of the payer'), '0x');
      asked.push('code of the asset');
      await Promise.race([simulationAsked, new Promise((resolve) => setTimeout(resolve, 1_000))]);
      asked.push('code of the asset answered');
      return '0x6080';
    },
    readContract: async ({ functionName }: { functionName: string }) => {
      asked.push(functionName === 'transferWithAuthorization' ? 'simulation' : functionName);
      simulated();
      return undefined;
    },
    verifyTypedData: async () => false,
  } as unknown as FacilitatorEvmSigner;
  const paid = {
    ...payload,
    accepted: terms,
    payload: { signature: signed, authorization },
  } as PaymentPayload;
  return { scheme: new ChainTimedExactScheme(signer, clock), paid, terms, asked };
}

describe('ChainTimedExactScheme.verify', () => {
  it("takes an account's own signature without reading its code, the transfer simulated at once", async () => {
    const { scheme, paid, terms, asked } = await verifyWorld('0x1111111111111111111111111111111111111111');
    expect(await scheme.verify(paid, terms)).toMatchObject({ isValid: true });
    expect(asked).toEqual(['code of the asset', 'simulation', 'code of the asset answered']);
  });

  it('reads the code of a payer whose signature is not its own, and refuses it without a simulation', async () => {
    const forged = `0x${'11'.repeat(64)}1b` as const;
    const { scheme, paid, terms, asked } = await verifyWorld(
      '0x2222222222222222222222222222222222222222',
      forged,
    );
    expect(await scheme.verify(paid, terms)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_signature',
    });
    expect(asked).toContain('code of the payer');
    expect(asked).not.toContain('simulation');
  });
});

/**
 * A settle whose transaction is prepared in two steps (`TwoStepWrite`): the simulation answers only
 * once the preparation was asked (or after a second); `refuses` makes the token refuse the transfer
 * (its authorization already used).
 */
function twoStepWorld(refuses: boolean) {
  const asked: string[] = [];
  let preparing = () => {};
  const prepareAsked = new Promise<void>((resolve) => (preparing = resolve));
  const { signer } = scriptedSigner(0);
  const scheme = new ChainTimedExactScheme(
    {
      ...signer,
      readContract: async ({ functionName }: { functionName: string }) => {
        if (functionName !== 'transferWithAuthorization') return functionName === 'authorizationState';
        asked.push('simulation');
        await Promise.race([prepareAsked, new Promise((resolve) => setTimeout(resolve, 1_000))]);
        asked.push('simulation answered');
        if (refuses) throw new Error('execution reverted');
        return undefined;
      },
      writeContract: async () => (asked.push('writeContract'), HASH),
    } as unknown as FacilitatorEvmSigner,
    clock,
    {
      prepareWrite: async () => {
        asked.push('prepare');
        preparing();
        return async () => (asked.push('send'), HASH);
      },
    },
  );
  return { scheme, asked };
}

describe('ChainTimedExactScheme.settle, prepared in two steps', () => {
  it('prepares the transaction while the transfer is simulated, and sends it once the simulation took it', async () => {
    const { scheme, asked } = twoStepWorld(false);
    expect(await scheme.settle(payload, requirements)).toMatchObject({ success: true, transaction: HASH });
    expect(asked).toEqual(['prepare', 'simulation', 'simulation answered', 'send']);
  });

  it('sends nothing the simulation refused', async () => {
    const { scheme, asked } = twoStepWorld(true);
    expect(await scheme.settle(payload, requirements)).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_nonce_already_used',
      transaction: '',
    });
    expect(asked).not.toContain('send');
    expect(asked).not.toContain('writeContract');
  });
});

describe('ChainTimedExactScheme.settle', () => {
  it('answers settlement_pending with the transaction when its receipt does not come', async () => {
    const { signer, asked } = scriptedSigner(1);
    const scheme = new ChainTimedExactScheme(signer, clock);
    expect(await scheme.settle(payload, requirements)).toMatchObject({
      success: false,
      errorReason: 'settlement_pending',
      transaction: HASH,
    });
    expect(asked).toEqual({ sends: 1, waits: 1 });
  });

  it('settles again by waiting for the transaction already sent, not by sending another', async () => {
    const { signer, asked } = scriptedSigner(1);
    const scheme = new ChainTimedExactScheme(signer, clock);
    await scheme.settle(payload, requirements);
    expect(await scheme.settle(payload, requirements)).toEqual({
      success: true,
      transaction: HASH,
      network: NETWORK,
      payer: FROM,
    });
    expect(asked).toEqual({ sends: 1, waits: 2 });
  });

  it('refuses a receipt without the transfer it was sent for', async () => {
    const { signer } = scriptedSigner(0);
    const scheme = new ChainTimedExactScheme(
      { ...signer, waitForTransactionReceipt: async () => ({ status: 'success', logs: [] }) },
      clock,
    );
    expect(await scheme.settle(payload, requirements)).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_transfer_event_mismatch',
      transaction: HASH,
    });
  });
});
