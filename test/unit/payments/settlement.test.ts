/**
 * The settlement state machine on hand-written fakes of its two peers: the resource server's
 * `settlePayment` (scripted answers, RPC faults recorded through `tracked`) and a `ChainView` that
 * records every question. The same paths run against a real chain behind a fault-injecting RPC
 * proxy in the e2e suites; here each branch is pinned down with an injected clock.
 */
import {
  type PaymentPayload,
  type PaymentRequirements,
  SettleError,
  type SettleResponse,
} from '@x402/core/types';
import { beforeEach, describe, expect, it } from 'vitest';
import { createBroadcastJournal } from '../../../src/payments/facilitator/broadcast-journal.ts';
import type { ChainView, ReceiptStatus } from '../../../src/payments/chain/chain-view.ts';
import { tracked } from '../../../src/payments/chain/rpc-faults.ts';
import {
  createSettlement,
  EXPIRY_MARGIN_MS,
  type SettlementDeps,
} from '../../../src/payments/facilitator/settlement.ts';

const NETWORK = 'eip155:8453';
const ASSET = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const FROM = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const NONCE = `0x${'11'.repeat(32)}`;
const HASH = `0x${'aa'.repeat(32)}` as const;
const RAW = `0x02${'bb'.repeat(120)}` as const;
const KEY = `${FROM.toLowerCase()}:${NONCE}`;
const START_MS = 1_800_000_000_000;
const VALID_BEFORE_S = START_MS / 1000 + 45;

const payload = {
  x402Version: 2,
  accepted: {},
  payload: {
    signature: `0x${'11'.repeat(65)}`,
    authorization: {
      from: FROM,
      to: FROM,
      value: '10000',
      validAfter: '0',
      validBefore: String(VALID_BEFORE_S),
      nonce: NONCE,
    },
  },
} as unknown as PaymentPayload;
const requirements: PaymentRequirements = {
  scheme: 'exact',
  network: NETWORK,
  asset: ASSET,
  amount: '10000',
  payTo: FROM,
  maxTimeoutSeconds: 45,
  extra: {},
};

/** A chain whose answers the test sets; `fail` makes every question throw like a dead RPC. */
class FakeChain implements ChainView {
  receipt: ReceiptStatus = 'not_found';
  used = false;
  blockTime = BigInt(START_MS / 1000);
  fail = false;
  readonly calls: string[] = [];
  private ask<T>(name: string, value: T): Promise<T> {
    this.calls.push(name);
    return this.fail ? Promise.reject(new Error('HTTP request failed')) : Promise.resolve(value);
  }
  receiptStatus = () => this.ask('receipt', this.receipt);
  authorizationUsed = () => this.ask('authorizationState', this.used);
  latestBlockTime = () => this.ask('block', this.blockTime);
  chainTime = () => this.ask('time', this.blockTime);
  rebroadcast = () => this.ask('rebroadcast', undefined);
  nonceMined?: (nonce: number) => Promise<boolean>;
  verifyMessage = () => this.ask('verifyMessage', false);
}

let clock: number;
let chain: FakeChain;
/** The account nonces given back by settlements. */
let abandoned: number[];
const journal = createBroadcastJournal();

/** A settlement whose resource server answers with `answer` (after `broadcast`, if given). */
function settlementWith(
  answer: () => Promise<SettleResponse>,
  { withChain = true, withJournal = true, broadcast = false, aheadOfChainMs = 0 } = {},
) {
  const resourceServer: SettlementDeps['resourceServer'] = {
    settlePayment: async () => {
      if (broadcast) journal.record(KEY, { hash: HASH, raw: RAW, nonce: 7 });
      return answer();
    },
  };
  return createSettlement({
    resourceServer,
    network: NETWORK,
    ...(withChain ? { chain } : {}),
    ...(withJournal ? { broadcasts: journal } : {}),
    onAbandoned: async (nonce) => void abandoned.push(nonce),
    now: () => clock,
    clock: { now: () => clock - aheadOfChainMs },
    sleep: async (ms) => void (clock += ms),
    deadlineMs: 50_000,
    pollMs: 500,
  });
}

const failure = (errorReason: string, transaction = ''): SettleResponse => ({
  success: false,
  errorReason,
  transaction,
  network: NETWORK,
  payer: FROM,
});
/** An answer given after an RPC call inside the facilitator failed. */
const afterRpcFault = (response: SettleResponse) => async () => {
  await tracked(() => Promise.reject(new Error('fetch failed'))).catch(() => {});
  return response;
};

beforeEach(() => {
  clock = START_MS;
  chain = new FakeChain();
  abandoned = [];
  journal.take(KEY);
});

describe('settlement', () => {
  it('takes a successful settlement as it is, without the facilitator free text', async () => {
    const settle = settlementWith(async () => ({
      success: true,
      transaction: HASH,
      network: NETWORK,
      payer: FROM,
      errorMessage: 'URL: https://rpc.example/key',
    }));
    const outcome = await settle(payload, requirements);
    expect(outcome).toEqual({
      status: 'settled',
      receipt: { success: true, transaction: HASH, network: NETWORK, payer: FROM },
    });
    expect(chain.calls).toEqual([]);
  });

  it('refuses (402) when the facilitator refused and nothing was sent', async () => {
    const outcome = await settlementWith(async () => failure('invalid_exact_evm_insufficient_balance'))(
      payload,
      requirements,
    );
    expect(outcome).toEqual({ status: 'refused', reason: 'invalid_exact_evm_insufficient_balance' });
    expect(chain.calls).toEqual([]);
  });

  it('refuses on a remote facilitator SettleError that carries its answer', async () => {
    const settle = settlementWith(
      async () => {
        throw new SettleError(400, failure('invalid_exact_evm_nonce_already_used'));
      },
      { withJournal: false },
    );
    expect(await settle(payload, requirements)).toEqual({
      status: 'refused',
      reason: 'invalid_exact_evm_nonce_already_used',
    });
  });

  it('is unavailable (503), not refused, when an RPC call failed before anything was sent', async () => {
    const settle = settlementWith(afterRpcFault(failure('invalid_exact_evm_transaction_failed')));
    expect(await settle(payload, requirements)).toEqual({ status: 'unavailable' });
    expect(chain.calls).toEqual([]);
  });

  it('is unavailable when a remote facilitator did not answer and no chain can be asked', async () => {
    const settle = settlementWith(
      async () => {
        throw new Error('fetch failed');
      },
      { withChain: false, withJournal: false },
    );
    expect(await settle(payload, requirements)).toEqual({ status: 'unavailable' });
  });

  it('finds a sent transaction whose answer was lost by its hash: settled', async () => {
    chain.receipt = 'success';
    const settle = settlementWith(afterRpcFault(failure('invalid_exact_evm_transaction_failed')), {
      broadcast: true,
    });
    expect(await settle(payload, requirements)).toEqual({
      status: 'settled',
      receipt: { success: true, transaction: HASH, network: NETWORK, payer: FROM },
    });
    expect(chain.calls).toEqual(['receipt']);
  });

  it('takes a used authorization as paid while the receipt cannot be had', async () => {
    chain.used = true;
    const settle = settlementWith(async () => failure('settlement_pending', HASH));
    const outcome = await settle(payload, requirements);
    expect(outcome).toMatchObject({ status: 'settled', receipt: { transaction: HASH } });
  });

  it('resends the signed transaction while it is unknown, and settles once it is mined', async () => {
    let asked = 0;
    chain.receiptStatus = async () => {
      chain.calls.push('receipt');
      asked += 1;
      return asked < 3 ? 'not_found' : 'success';
    };
    const settle = settlementWith(afterRpcFault(failure('invalid_exact_evm_transaction_failed')), {
      broadcast: true,
    });
    expect(await settle(payload, requirements)).toMatchObject({ status: 'settled' });
    expect(chain.calls.filter((call) => call === 'rebroadcast')).toHaveLength(2);
    expect(clock - START_MS).toBe(1_000);
  });

  it('reissues the nonce when a sent transaction is left unconfirmed', async () => {
    chain.fail = true;
    const settle = settlementWith(afterRpcFault(failure('invalid_exact_evm_transaction_failed')), {
      broadcast: true,
    });
    expect(await settle(payload, requirements)).toMatchObject({ status: 'unconfirmed' });
    expect(abandoned).toEqual([7]);
  });

  it('runs past its deadline until an authorization with a later validBefore is proven unusable', async () => {
    const later = structuredClone(payload) as unknown as {
      payload: { authorization: { validBefore: string } };
    };
    later.payload.authorization.validBefore = String(VALID_BEFORE_S + 30);
    const settle = settlementWith(afterRpcFault(failure('invalid_exact_evm_transaction_failed')), {
      broadcast: true,
    });
    expect(await settle(later as unknown as PaymentPayload, requirements)).toEqual({ status: 'unavailable' });
    expect(clock - START_MS).toBeGreaterThanOrEqual(80_000);
  });

  it('is unavailable once the authorization is unused past validBefore; the nonce is reissued', async () => {
    const settle = settlementWith(afterRpcFault(failure('invalid_exact_evm_transaction_failed')), {
      broadcast: true,
    });
    // Blocks keep coming with the wall clock: the one past validBefore proves it.
    chain.latestBlockTime = async () => {
      chain.calls.push('block');
      return BigInt(Math.floor(clock / 1000));
    };
    expect(await settle(payload, requirements)).toEqual({ status: 'unavailable' });
    expect(clock).toBeGreaterThanOrEqual(VALID_BEFORE_S * 1000);
    expect(abandoned).toEqual([7]);
  });

  it('is unavailable past validBefore by the wall clock when no block is mined', async () => {
    const settle = settlementWith(afterRpcFault(failure('invalid_exact_evm_transaction_failed')), {
      broadcast: true,
    });
    expect(await settle(payload, requirements)).toEqual({ status: 'unavailable' });
    expect(clock).toBeGreaterThanOrEqual(VALID_BEFORE_S * 1000 + EXPIRY_MARGIN_MS);
  });

  it("judges expiry on the chain's clock: ours two minutes ahead, a transaction mined late is paid", async () => {
    clock = START_MS + 120_000;
    const settle = settlementWith(afterRpcFault(failure('invalid_exact_evm_transaction_failed')), {
      broadcast: true,
      aheadOfChainMs: 120_000,
    });
    // No block for 30 s, then ours: by our clock its authorization expired long before.
    chain.receiptStatus = async () => {
      chain.calls.push('receipt');
      return clock >= START_MS + 150_000 ? 'success' : 'not_found';
    };
    expect(await settle(payload, requirements)).toMatchObject({ status: 'settled' });
    expect(abandoned).toEqual([]);
  });

  it('is unavailable when our transaction reverted and the authorization is unused', async () => {
    chain.receipt = 'reverted';
    const settle = settlementWith(async () => failure('invalid_exact_evm_transaction_failed', HASH));
    expect(await settle(payload, requirements)).toEqual({ status: 'unavailable' });
  });

  it('takes a reverted transaction as paid when someone else used the authorization first', async () => {
    chain.receipt = 'reverted';
    chain.used = true;
    const settle = settlementWith(async () => failure('invalid_exact_evm_transaction_failed', HASH));
    expect(await settle(payload, requirements)).toMatchObject({ status: 'settled' });
  });

  it('delivers unconfirmed when a sent transaction cannot be looked up until the deadline', async () => {
    chain.fail = true;
    const settle = settlementWith(afterRpcFault(failure('invalid_exact_evm_transaction_failed')), {
      broadcast: true,
    });
    expect(await settle(payload, requirements)).toEqual({
      status: 'unconfirmed',
      receipt: {
        success: false,
        errorReason: 'settlement_unconfirmed',
        transaction: HASH,
        network: NETWORK,
        payer: FROM,
      },
    });
    // The chain never answered: the 50 s bound, not the authorization's provable expiry (52 s here).
    expect(clock - START_MS).toBeLessThanOrEqual(50_000);
    expect(clock - START_MS).toBeGreaterThanOrEqual(49_000);
  });

  it('is unavailable within two looks once another transaction was mined at our nonce, the authorization unused', async () => {
    // A Redis restarted empty gave nonce 7 to two settlements: the other one's transaction mined.
    chain.nonceMined = async (nonce) => {
      chain.calls.push('nonce');
      return nonce <= 7;
    };
    const settle = settlementWith(afterRpcFault(failure('invalid_exact_evm_transaction_failed')), {
      broadcast: true,
    });
    expect(await settle(payload, requirements)).toEqual({ status: 'unavailable' });
    expect(clock - START_MS).toBeLessThanOrEqual(1_000);
    expect(chain.calls.filter((call) => call === 'authorizationState').length).toBeGreaterThanOrEqual(2);
    expect(abandoned).toEqual([7]);
  });

  it('takes a mined nonce as paid when it was our transaction (its receipt found)', async () => {
    chain.nonceMined = async () => true;
    chain.receipt = 'success';
    const settle = settlementWith(afterRpcFault(failure('invalid_exact_evm_transaction_failed')), {
      broadcast: true,
    });
    expect(await settle(payload, requirements)).toMatchObject({ status: 'settled' });
  });

  it('withholds (unavailable) when nothing is known to be sent and the chain cannot be read', async () => {
    chain.fail = true;
    const settle = settlementWith(
      async () => {
        throw new Error('facilitator timed out');
      },
      { withJournal: false },
    );
    expect(await settle(payload, requirements)).toEqual({ status: 'unavailable' });
  });
});
