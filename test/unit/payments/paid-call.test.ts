/**
 * The transport-neutral paid call on hand-written fakes of the resource server and the settlement:
 * what is settled, when, and the one-time claim of a paid result that never reached its client.
 */
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunOutcome } from '../../../src/checks/outcome.ts';
import { createLifecycle, type Lifecycle } from '../../../src/lifecycle.ts';
import { noMetrics } from '../../../src/ops/metrics.ts';
import { createInFlightLock } from '../../../src/payments/server/in-flight-lock.ts';
import {
  createPaidCall,
  type PaidCallDeps,
  type PaidCallOutcome,
  type PaidCallRequest,
} from '../../../src/payments/server/paid-call.ts';
import { paymentRequiredProblem } from '../../../src/payments/server/payment-problem.ts';
import type { PaymentTerms } from '../../../src/payments/server/payment-terms.ts';
import type { Settle } from '../../../src/payments/facilitator/settlement.ts';
import { createUndelivered, type Undelivered } from '../../../src/payments/server/undelivered.ts';

const requirements = {
  scheme: 'exact',
  network: 'eip155:8453',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  amount: '10000',
  payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  maxTimeoutSeconds: 45,
  extra: {},
} satisfies PaymentRequirements;
const terms: PaymentTerms = {
  requirements: [requirements],
  resource: { url: 'https://x/v1/cert' } as PaymentTerms['resource'],
  extensions: {},
};
const RECEIPT = { success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:8453' } as const;

function payment(nonce: string) {
  const payload = {
    x402Version: 2,
    accepted: requirements,
    payload: {
      signature: `0x${'cd'.repeat(65)}`,
      authorization: {
        from: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
        to: requirements.payTo,
        value: '10000',
        validAfter: '0',
        validBefore: String(Math.floor(Date.now() / 1000) + 45),
        nonce: `0x${nonce.repeat(64)}`,
      },
    },
  } as unknown as PaymentPayload;
  return { kind: 'payload', payload } as const;
}

let events: string[];
let lifecycle: Lifecycle;
/** A resource server that admits every payment, recording each verification in `events`. */
const resourceServer: PaidCallDeps['resourceServer'] = {
  validateExtensions: () => ({ valid: true }),
  findMatchingRequirements: () => requirements,
  verifyPayment: async () => {
    events.push('verify');
    return { isValid: true, payer: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' };
  },
  createPaymentRequiredResponse: async (accepts, resource, error) => ({
    x402Version: 2,
    error,
    resource,
    accepts,
  }),
};
let paidCall: ReturnType<typeof createPaidCall>;

beforeEach(() => {
  events = [];
  lifecycle = createLifecycle();
  const settle: Settle = async () => {
    events.push('settle');
    return { status: 'settled', receipt: RECEIPT };
  };
  paidCall = createPaidCall({
    resourceServer,
    settle,
    lock: createInFlightLock(),
    undelivered: createUndelivered(),
    lifecycle,
    logger: pino({ level: 'silent' }),
    metrics: noMetrics,
  });
});

/** A 402 saying the payment was already settled, naming `transaction`; never "not charged". */
function expectAlreadySettled(outcome: PaidCallOutcome, transaction: string): void {
  expect(outcome).toMatchObject({
    kind: 'challenge',
    paymentRequired: { error: `already_settled: transaction ${transaction}` },
  });
  const problem = paymentRequiredProblem(
    (outcome as { paymentRequired: PaymentRequired }).paymentRequired,
    '0.01',
  );
  expect(problem.detail).toContain(transaction);
  expect(problem.detail).not.toMatch(/not charged/i);
}

function request(nonce: string, signal: AbortSignal): PaidCallRequest {
  const run = async (): Promise<RunOutcome<unknown>> => {
    events.push('run');
    return { type: 'result', result: { domain: 'example.com' } };
  };
  return { terms, payment: payment(nonce), run, signal, name: '/v1/cert', subject: 'example.com' };
}

describe('paidCall', () => {
  it('verifies, runs and settles once, in that order', async () => {
    const outcome = await paidCall(request('1', new AbortController().signal));
    expect(outcome).toEqual({ kind: 'delivered', result: { domain: 'example.com' }, receipt: RECEIPT });
    expect(events).toEqual(['verify', 'run', 'settle']);
  });

  it('settles nothing for a client that left during the check', async () => {
    const client = new AbortController();
    const req = request('2', client.signal);
    const outcome = await paidCall({
      ...req,
      run: async (paying) => {
        client.abort();
        return req.run(paying);
      },
    });
    expect(outcome).toEqual({ kind: 'client_gone' });
    expect(events).toEqual(['verify', 'run']);
  });

  it('tells the settler a settlement follows once the check gave its result, before the settlement is recorded', async () => {
    const undelivered = createUndelivered();
    const followed = createPaidCall({
      resourceServer,
      settle: async () => (events.push('settle'), { status: 'settled', receipt: RECEIPT }),
      lock: createInFlightLock(),
      undelivered: {
        ...undelivered,
        settling: async (...args) => (events.push('record'), undelivered.settling(...args)),
      },
      lifecycle,
      logger: pino({ level: 'silent' }),
      metrics: noMetrics,
      settlementFollows: async (key) => void events.push(`follows ${key}`),
    });
    expect(await followed(request('4', new AbortController().signal))).toMatchObject({ kind: 'delivered' });
    const key = `0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc:0x${'4'.repeat(64)}`;
    expect(events).toEqual(['verify', 'run', `follows ${key}`, 'record', 'settle']);

    events.length = 0;
    const client = new AbortController();
    const req = request('5', client.signal);
    const run = async (paying: Parameters<PaidCallRequest['run']>[0]) => (client.abort(), req.run(paying));
    expect(await followed({ ...req, run })).toEqual({ kind: 'client_gone' });
    expect(events).toEqual(['verify', 'run']);
  });

  it("settles nothing for a client that left while the settlement's first requests went out", async () => {
    const client = new AbortController();
    const followed = createPaidCall({
      resourceServer,
      settle: async () => (events.push('settle'), { status: 'settled', receipt: RECEIPT }),
      lock: createInFlightLock(),
      undelivered: createUndelivered(),
      lifecycle,
      logger: pino({ level: 'silent' }),
      metrics: noMetrics,
      settlementFollows: async () => {
        events.push('follows');
        client.abort();
      },
    });
    expect(await followed(request('6', client.signal))).toEqual({ kind: 'client_gone' });
    expect(events).toEqual(['verify', 'run', 'follows']);
  });

  it('settles nothing once the stop grace is over', async () => {
    lifecycle.beginStop(0);
    expect(await paidCall(request('3', new AbortController().signal))).toEqual({ kind: 'stopping' });
    expect(events).toEqual(['verify', 'run']);
  });

  it('lets a client whose paid answer was lost after settlement claim it once, without a second charge', async () => {
    const client = new AbortController();
    expect((await paidCall(request('4', client.signal))).kind).toBe('delivered');
    client.abort(); // the transport could not write the answer: the signal aborts after the fact
    events.length = 0;
    const claimed = await paidCall(request('4', new AbortController().signal));
    expect(claimed).toEqual({ kind: 'delivered', result: { domain: 'example.com' }, receipt: RECEIPT });
    expect(events).toEqual(['run']);
    events.length = 0;
    // Handed over now: a further copy is told it was settled, naming the transaction, and runs nothing.
    expectAlreadySettled(await paidCall(request('4', new AbortController().signal)), RECEIPT.transaction);
    expect(events).toEqual([]);
  });

  it('keeps a claimed result claimable when its redelivery is lost too, until one reaches the client', async () => {
    const first = new AbortController();
    expect((await paidCall(request('c', first.signal))).kind).toBe('delivered');
    first.abort();
    // The claim's answer is lost as well (the client leaves during the write): still paid, still owed.
    const second = new AbortController();
    expect((await paidCall(request('c', second.signal))).kind).toBe('delivered');
    second.abort();
    // The client leaves during the redelivered check itself.
    const third = new AbortController();
    const req = request('c', third.signal);
    await paidCall({
      ...req,
      run: async (paying) => {
        third.abort();
        return req.run(paying);
      },
    });
    events.length = 0;
    const claimed = await paidCall(request('c', new AbortController().signal));
    expect(claimed).toEqual({ kind: 'delivered', result: { domain: 'example.com' }, receipt: RECEIPT });
    expect(events).toEqual(['run']);
  });

  it('holds the lock through a redelivery: a copy arriving meanwhile is in flight, not redelivered again', async () => {
    const first = new AbortController();
    expect((await paidCall(request('e', first.signal))).kind).toBe('delivered');
    first.abort();
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const req = request('e', new AbortController().signal);
    const redelivering = paidCall({
      ...req,
      run: async (paying) => {
        await held;
        return req.run(paying);
      },
    });
    await new Promise((resolve) => setImmediate(resolve));
    events.length = 0;
    expect(await paidCall(request('e', new AbortController().signal))).toEqual({ kind: 'in_flight' });
    expect(events).toEqual([]);
    finish();
    expect((await redelivering).kind).toBe('delivered');
  });

  it('answers 503 for a claim whose reply was lost after the store ran it, and the next copy gets the result', async () => {
    const store = createUndelivered();
    let replyLost = false;
    const call = createPaidCall({
      resourceServer,
      settle: async () => {
        events.push('settle');
        return { status: 'settled', receipt: RECEIPT };
      },
      lock: createInFlightLock(),
      undelivered: {
        ...store,
        async claim(...args) {
          const found = await store.claim(...args);
          if (!replyLost) return found;
          replyLost = false;
          throw new Error('Command timed out');
        },
      },
      lifecycle,
      logger: pino({ level: 'silent' }),
      metrics: noMetrics,
    });
    const client = new AbortController();
    expect((await call(request('9', client.signal))).kind).toBe('delivered');
    client.abort(); // the answer was not written: the result is owed
    replyLost = true;
    events.length = 0;
    expect(await call(request('9', new AbortController().signal))).toEqual({ kind: 'payment_unavailable' });
    expect(events).toEqual([]);
    const claimed = await call(request('9', new AbortController().signal));
    expect(claimed).toEqual({ kind: 'delivered', result: { domain: 'example.com' }, receipt: RECEIPT });
    expect(events).toEqual(['run']);
    // Handed over: a further copy is told it was settled, never sent to the facilitator.
    events.length = 0;
    expectAlreadySettled(await call(request('9', new AbortController().signal)), RECEIPT.transaction);
    expect(events).toEqual([]);
  });

  it('keeps the result claimable when the client leaves while its hand-over is being recorded', async () => {
    const store = createUndelivered();
    const client = new AbortController();
    const call = createPaidCall({
      resourceServer,
      settle: async () => ({ status: 'settled', receipt: RECEIPT }),
      lock: createInFlightLock(),
      undelivered: {
        ...store,
        async remember(key, signature, receipt, handedOver) {
          // The client goes away while the store writes the hand-over (a Redis round trip).
          if (handedOver) client.abort();
          return store.remember(key, signature, receipt, handedOver);
        },
      },
      lifecycle,
      logger: pino({ level: 'silent' }),
      metrics: noMetrics,
    });
    expect((await call(request('f', client.signal))).kind).toBe('delivered');
    await new Promise((resolve) => setImmediate(resolve));
    events.length = 0;
    // The answer never reached the client: the same payment gets the result, not "already settled".
    const claimed = await call(request('f', new AbortController().signal));
    expect(claimed).toEqual({ kind: 'delivered', result: { domain: 'example.com' }, receipt: RECEIPT });
    expect(events).toEqual(['run']);
  });

  it('hands the work its authorization and runs the after-settlement step, delivered or not', async () => {
    const steps: string[] = [];
    const paid = request('e', new AbortController().signal);
    const delivered = await paidCall({
      ...paid,
      run: async (paying) => {
        steps.push(`run ${paying.nonce.slice(0, 4)}`);
        return paid.run(paying);
      },
      afterSettlement: async (settled) => void steps.push(`after ${settled}`),
    });
    expect(delivered.kind).toBe('delivered');
    const gone = new AbortController();
    const left = await paidCall({
      ...request('f', gone.signal),
      run: async () => {
        gone.abort();
        return { type: 'result', result: {} };
      },
      afterSettlement: async (settled) => void steps.push(`after ${settled}`),
    });
    expect(left.kind).toBe('client_gone');
    expect(steps).toEqual(['run 0xee', 'after true', 'after false']);
  });

  it('offers no second result for a check that was delivered: its copy is told the payment was settled', async () => {
    const client = new AbortController();
    await paidCall(request('5', client.signal));
    events.length = 0;
    const copy = await paidCall(request('5', new AbortController().signal));
    expectAlreadySettled(copy, RECEIPT.transaction);
    expect(events).toEqual([]);
  });

  it('answers a copy of a delivered payment with the same result and receipt when the result is kept', async () => {
    const kept = () => ({ ...request('7', new AbortController().signal), keptResult: true });
    expect(await paidCall(kept())).toMatchObject({ kind: 'delivered', receipt: RECEIPT });
    for (let copy = 0; copy < 2; copy += 1) {
      events.length = 0;
      expect(await paidCall(kept())).toEqual({
        kind: 'delivered',
        result: { domain: 'example.com' },
        receipt: RECEIPT,
      });
      expect(events).toEqual(['run']);
    }
  });

  it('refuses an authorization valid far beyond the signed-for window, before verify', async () => {
    const long = payment('6');
    const auth = (long.payload.payload as { authorization: { validBefore: string } }).authorization;
    auth.validBefore = String(Math.floor(Date.now() / 1000) + 3_600);
    const outcome = await paidCall({ ...request('6', new AbortController().signal), payment: long });
    expect(outcome).toMatchObject({
      kind: 'challenge',
      paymentRequired: { error: 'authorization_window_too_long' },
    });
    expect(events).toEqual([]);
  });

  describe("a refusal of the authorization's time window on this machine's clock", () => {
    /** A paid call whose facilitator refuses every payment for `reason`, on a chain clock at `chainNowMs`. */
    const refusingOnOurClock = (reason: string, chainNowMs: number) =>
      createPaidCall({
        resourceServer: {
          ...resourceServer,
          verifyPayment: async () => {
            events.push('verify');
            return {
              isValid: false,
              invalidReason: reason,
              payer: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
            };
          },
        },
        settle: async () => ({ status: 'settled', receipt: RECEIPT }),
        lock: createInFlightLock(),
        undelivered: createUndelivered(),
        lifecycle,
        logger: pino({ level: 'silent' }),
        metrics: noMetrics,
        clock: { now: () => chainNowMs, refresh: async () => true },
      });
    const expired = 'invalid_exact_evm_payload_authorization_valid_before';

    it('is 503 uncharged, not a request to sign again, when the chain takes the window', async () => {
      // This machine runs 40 s ahead: the SDK finds validBefore (now + 45 s on the chain) too close.
      const outcome = await refusingOnOurClock(
        expired,
        Date.now(),
      )(request('c', new AbortController().signal));
      expect(outcome).toEqual({ kind: 'payment_unavailable' });
      expect(events).toEqual(['verify']);
    });

    it('stays a 402 when the chain refuses the window too', async () => {
      const later = Date.now() + 60_000;
      const outcome = await refusingOnOurClock(expired, later)(request('d', new AbortController().signal));
      expect(outcome).toMatchObject({ kind: 'challenge', paymentRequired: { error: expired } });
    });

    it('stays a 402 for any other refusal', async () => {
      const reason = 'invalid_exact_evm_payload_signature';
      const outcome = await refusingOnOurClock(
        reason,
        Date.now(),
      )(request('e', new AbortController().signal));
      expect(outcome).toMatchObject({ kind: 'challenge', paymentRequired: { error: reason } });
    });
  });

  it('refuses a validBefore of more than 20 digits too (a valid uint256, valid for ever), before verify', async () => {
    const forever = payment('b');
    const auth = (forever.payload.payload as { authorization: { validBefore: string } }).authorization;
    auth.validBefore = `1${'0'.repeat(30)}`;
    const outcome = await paidCall({ ...request('b', new AbortController().signal), payment: forever });
    expect(outcome).toMatchObject({
      kind: 'challenge',
      paymentRequired: { error: 'authorization_window_too_long' },
    });
    expect(events).toEqual([]);
  });

  it('answers a concurrent copy of an authorization 409 without running it, and frees it when the check throws', async () => {
    let fail: (error: Error) => void = () => {};
    const first = paidCall({
      ...request('7', new AbortController().signal),
      run: () =>
        new Promise<RunOutcome<unknown>>((_resolve, reject) => {
          fail = reject;
        }),
    }).catch((error: unknown) => error);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await paidCall(request('7', new AbortController().signal))).toEqual({ kind: 'in_flight' });
    fail(new Error('check crashed'));
    expect(await first).toBeInstanceOf(Error);
    events.length = 0;
    expect((await paidCall(request('7', new AbortController().signal))).kind).toBe('delivered');
    expect(events).toEqual(['verify', 'run', 'settle']);
  });
});

describe('paidCall when the instance settling a payment dies', () => {
  const logger = pino({ level: 'silent' });

  /** An instance sharing `undelivered` with others; its lock is its own (a dead holder's lease has ended). */
  function instance(undelivered: Undelivered, settle: Settle, used?: () => Promise<boolean>) {
    return createPaidCall({
      resourceServer,
      settle,
      lock: createInFlightLock(),
      undelivered,
      lifecycle: createLifecycle(),
      logger,
      metrics: noMetrics,
      ...(used ? { chain: { authorizationUsed: used } } : {}),
    });
  }

  /** A settlement that never answers: its process died inside it; `entered` once it was asked. */
  function dyingSettle() {
    let entered!: () => void;
    const asked = new Promise<void>((resolve) => (entered = resolve));
    const settle: Settle = () => {
      events.push('settle');
      entered();
      return new Promise(() => {});
    };
    return { settle, asked };
  }

  it('records the settlement before it starts, and delivers a copy on another instance once the chain shows it paid', async () => {
    const shared = createUndelivered();
    const dying = dyingSettle();
    void instance(shared, dying.settle)(request('d', new AbortController().signal));
    await dying.asked;
    const usedAsked: string[] = [];
    const other = instance(
      shared,
      async () => {
        events.push('settle');
        return { status: 'settled', receipt: RECEIPT };
      },
      async () => {
        usedAsked.push('asked');
        return true;
      },
    );
    events.length = 0;
    const outcome = await other(request('d', new AbortController().signal));
    expect(outcome).toMatchObject({
      kind: 'delivered',
      result: { domain: 'example.com' },
      receipt: { success: true, network: 'eip155:8453' },
    });
    expect(events).toEqual(['run']);
    expect(usedAsked).toEqual(['asked']);
    // Delivered once: the next copy is told it was settled (the dead settler's hash is unknown here).
    events.length = 0;
    expectAlreadySettled(
      await other(request('d', new AbortController().signal)),
      'not known to this instance',
    );
    expect(events).toEqual([]);
  });

  it('runs a copy as a new payment when the chain shows the dead settlement unused', async () => {
    const shared = createUndelivered();
    const dying = dyingSettle();
    void instance(shared, dying.settle)(request('e', new AbortController().signal));
    await dying.asked;
    events.length = 0;
    const other = instance(
      shared,
      async () => {
        events.push('settle');
        return { status: 'settled', receipt: RECEIPT };
      },
      async () => false,
    );
    expect((await other(request('e', new AbortController().signal))).kind).toBe('delivered');
    expect(events).toEqual(['verify', 'run', 'settle']);
  });

  it('answers 503 for an interrupted settlement while the chain cannot be read, running nothing', async () => {
    const shared = createUndelivered();
    const dying = dyingSettle();
    void instance(shared, dying.settle)(request('f', new AbortController().signal));
    await dying.asked;
    events.length = 0;
    const other = instance(shared, dying.settle, () => Promise.reject(new Error('rpc down')));
    expect(await other(request('f', new AbortController().signal))).toEqual({ kind: 'payment_unavailable' });
    expect(events).toEqual([]);
  });

  it('sends nothing when the settlement cannot be recorded first', async () => {
    const undelivered: Undelivered = {
      ...createUndelivered(),
      settling: () => Promise.reject(new Error('store down')),
    };
    const call = instance(undelivered, async () => {
      events.push('settle');
      return { status: 'settled', receipt: RECEIPT };
    });
    expect(await call(request('0', new AbortController().signal))).toEqual({ kind: 'payment_unavailable' });
    expect(events).toEqual(['verify', 'run']);
  });
});
