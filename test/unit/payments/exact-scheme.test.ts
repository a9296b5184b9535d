/**
 * The exact scheme on a scripted signer. Verify: an account's own signature is recovered without
 * reading the payer's code, the transfer simulated while the asset's code is still being read (one
 * round trip); any other signature reads the payer's code first and is refused before any
 * simulation. Settle: the transaction is prepared while the transfer is simulated and sent only
 * once the simulation took it, a simulation begun as the check ended standing in for settle's own
 * while it is young and took the transfer; the resource server settles once more when a receipt did not come,
 * and that second settle waits for the transaction already sent; it never sends another for the
 * same authorization.
 */
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { FacilitatorEvmSigner } from '@x402/evm';
import { authorizationTypes } from '@x402/evm';
import { encodeAbiParameters, encodeEventTopics, parseAbi } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authorizationKey } from '../../../src/payments/exact-authorization.ts';
import {
  ChainTimedExactScheme,
  PREPARE_AHEAD_DELAY_MS,
  SIMULATED_AHEAD_MS,
  type TwoStepWrite,
} from '../../../src/payments/facilitator/exact-scheme.ts';

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

/** The receipt of a transfer of the price of `asset` from `from` to the recipient. */
const receiptOf = (from: string, asset: string = ASSET) => ({
  status: 'success',
  logs: [
    {
      address: asset,
      topics: encodeEventTopics({
        abi: parseAbi(['event Transfer(address indexed from, address indexed to, uint256 value)']),
        eventName: 'Transfer',
        args: { from: from as `0x${string}`, to: TO },
      }),
      data: encodeAbiParameters([{ type: 'uint256' }], [10_000n]),
    },
  ],
});
const transferReceipt = receiptOf(FROM);

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
 * after a second, so a scheme asking in turn is slow rather than stuck); the simulations numbered
 * in `refused` (from 1) revert.
 */
async function verifyWorld(
  asset: `0x${string}`,
  signature?: `0x${string}`,
  write?: TwoStepWrite,
  refused: readonly number[] = [],
) {
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
  let simulations = 0;
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
      if (functionName === 'transferWithAuthorization' && refused.includes(++simulations)) {
        throw new Error('execution reverted');
      }
      return functionName === 'authorizationState' ? false : undefined;
    },
    verifyTypedData: async () => false,
    waitForTransactionReceipt: async () => receiptOf(account.address, asset),
  } as unknown as FacilitatorEvmSigner;
  const paid = {
    ...payload,
    accepted: terms,
    payload: { signature: signed, authorization },
  } as PaymentPayload;
  return {
    scheme: new ChainTimedExactScheme(signer, clock, write),
    paid,
    terms,
    asked,
    key: authorizationKey(account.address, nonce),
  };
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
      expectSend: () => void asked.push('nonce count'),
    },
  );
  return { scheme, asked };
}

describe('ChainTimedExactScheme.settle, prepared in two steps', () => {
  it('prepares the transaction and reads the nonce count while the transfer is simulated, and sends it once the simulation took it', async () => {
    const { scheme, asked } = twoStepWorld(false);
    expect(await scheme.settle(payload, requirements)).toMatchObject({ success: true, transaction: HASH });
    expect(asked).toEqual(['simulation', 'prepare', 'nonce count', 'simulation answered', 'send']);
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

/**
 * A two-step write that records its preparations and sends, numbered; the first `failing`
 * preparations fail, as when the node does not answer.
 */
function recordedWrite(ahead: boolean, failing = 0) {
  const asked: string[] = [];
  let preparations = 0;
  const write: TwoStepWrite = {
    ahead,
    prepareWrite: async (args) => {
      preparations += 1;
      asked.push(`prepare ${preparations}${args.dataSuffix ? ` with ${args.dataSuffix}` : ''}`);
      if (preparations <= failing) throw new Error('fetch failed');
      const prepared = preparations;
      return async () => (asked.push(`send ${prepared}`), HASH);
    },
    expectSend: () => {},
  };
  return { write, asked };
}

/** A check that lasts longer than the preparation's delay: a timer due after the preparation's. */
const checkRuns = () => new Promise((resolve) => setTimeout(resolve, PREPARE_AHEAD_DELAY_MS + 5));

/**
 * A verify then a settle of one fresh account's payment, `between` them (by default a check that
 * outlasts the preparation's delay); what the write was asked by the time settle began.
 */
async function verifyThenSettle(
  { write, asked }: ReturnType<typeof recordedWrite>,
  between: () => Promise<unknown> = checkRuns,
): Promise<string[]> {
  const { scheme, paid, terms } = await verifyWorld(ASSET, undefined, write);
  expect(await scheme.verify(paid, terms)).toMatchObject({ isValid: true });
  await between();
  const beforeSettle = [...asked];
  expect(await scheme.settle(paid, terms)).toMatchObject({ success: true, transaction: HASH });
  return beforeSettle;
}

/**
 * Stops `performance.now` for each test of the enclosing suite, at the value it returns: the clock
 * that ages a preparation or a simulation stands still, however slowly the machine runs the test.
 */
function frozenClock(): number {
  const frozenAt = performance.now();
  beforeEach(() => {
    vi.spyOn(performance, 'now').mockReturnValue(frozenAt);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  return frozenAt;
}

describe('ChainTimedExactScheme, the transfer prepared by verify (TwoStepWrite.ahead)', () => {
  const frozenAt = frozenClock();

  it('prepares the transfer verify took while the check runs, and settle sends that preparation', async () => {
    const recorded = recordedWrite(true);
    expect(await verifyThenSettle(recorded)).toEqual(['prepare 1']);
    expect(recorded.asked).toEqual(['prepare 1', 'send 1']);
  });

  it('lets a settle that comes before the preparation began begin it, once', async () => {
    const recorded = recordedWrite(true);
    // The preparation's timer fires only when the test moves the clock, however slow the machine.
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      expect(await verifyThenSettle(recorded, async () => {})).toEqual([]);
      await vi.runAllTimersAsync();
    } finally {
      vi.useRealTimers();
    }
    expect(recorded.asked).toEqual(['prepare 1', 'send 1']);
  });

  it('prepares nothing in verify where another process settles', async () => {
    const recorded = recordedWrite(false);
    expect(await verifyThenSettle(recorded)).toEqual([]);
    expect(recorded.asked).toEqual(['prepare 1', 'send 1']);
  });

  it('prepares again at settle when the preparation ahead failed', async () => {
    const recorded = recordedWrite(true, 1);
    expect(await verifyThenSettle(recorded)).toEqual(['prepare 1']);
    expect(recorded.asked).toEqual(['prepare 1', 'prepare 2', 'send 2']);
  });

  it('prepares again at settle once the preparation ahead is older than its fees may be', async () => {
    const recorded = recordedWrite(true);
    await verifyThenSettle(recorded, async () => {
      await checkRuns();
      vi.spyOn(performance, 'now').mockReturnValue(frozenAt + 4_001);
      // The cache reads the clock at most once a millisecond.
      await new Promise((resolve) => setTimeout(resolve, 5));
    });
    expect(recorded.asked).toEqual(['prepare 1', 'prepare 2', 'send 2']);
  });

  it('prepares nothing for a payment verify refused', async () => {
    const { write, asked } = recordedWrite(true);
    const forged = `0x${'11'.repeat(64)}1b` as const;
    const { scheme, paid, terms } = await verifyWorld(ASSET, forged, write);
    expect(await scheme.verify(paid, terms)).toMatchObject({ isValid: false });
    await checkRuns();
    expect(asked).toEqual([]);
  });
});

describe('ChainTimedExactScheme, the settlement following the check (settlementFollows)', () => {
  const frozenAt = frozenClock();

  /**
   * A payment verified and its check run (the preparation begun), then the check's end told to the
   * scheme; what the signer and the write were asked from then on, both in `asked`.
   */
  async function checked(refused: readonly number[] = []) {
    const recorded = recordedWrite(true);
    const write = { ...recorded.write, expectSend: () => void recorded.asked.push('nonce count') };
    const world = await verifyWorld(ASSET, undefined, write, refused);
    expect(await world.scheme.verify(world.paid, world.terms)).toMatchObject({ isValid: true });
    await checkRuns();
    world.asked.length = 0;
    recorded.asked.length = 0;
    world.scheme.settlementFollows(world.key);
    const asked = () => [...world.asked, ...recorded.asked];
    return { ...world, asked };
  }

  it('simulates the transfer and reads the nonce count as the check ends, and settle sends on that simulation', async () => {
    const { scheme, paid, terms, asked } = await checked();
    expect(asked()).toEqual(['simulation', 'nonce count']);
    expect(await scheme.settle(paid, terms)).toMatchObject({ success: true, transaction: HASH });
    expect(asked()).toEqual(['simulation', 'nonce count', 'send 1']);
  });

  it('asks again within settle when the token refused the transfer ahead, and sends when it takes it then', async () => {
    const { scheme, paid, terms, asked } = await checked([2]);
    expect(await scheme.settle(paid, terms)).toMatchObject({ success: true, transaction: HASH });
    expect(asked()).toEqual(['simulation', 'simulation', 'nonce count', 'send 1']);
  });

  it('sends nothing when the token refuses the transfer at settle too', async () => {
    const { scheme, paid, terms, asked } = await checked([2, 3]);
    expect(await scheme.settle(paid, terms)).toMatchObject({ success: false, transaction: '' });
    expect(asked()).not.toContain('send 1');
  });

  it('simulates afresh at a settle that comes later than a simulation ahead may stand for', async () => {
    const { scheme, paid, terms, asked } = await checked();
    vi.spyOn(performance, 'now').mockReturnValue(frozenAt + SIMULATED_AHEAD_MS + 1);
    expect(await scheme.settle(paid, terms)).toMatchObject({ success: true, transaction: HASH });
    expect(asked()).toEqual(['simulation', 'simulation', 'nonce count', 'nonce count', 'send 1']);
  });

  it('begins them once, and nothing for a payment verify did not prepare', async () => {
    const { scheme, key, asked } = await checked();
    const before = asked().length;
    scheme.settlementFollows(key);
    scheme.settlementFollows(authorizationKey(FROM, `0x${'44'.repeat(32)}`));
    expect(asked()).toHaveLength(before);
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
