/**
 * Payment identifiers around the paid call, on the process store: the id read and refused before
 * any payment logic, the stored answer for the same payment, 409 for another payment or request,
 * concurrent copies, the windows (on an injected clock) and a store that cannot be asked.
 */
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import {
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  generatePaymentId,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier';
import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { noMetrics } from '../../../src/ops/metrics.ts';
import {
  createIdentifiedAnswers,
  IDENTIFIED_LEASE_MS,
  type IdentifiedAnswers,
} from '../../../src/payments/server/identified-answers.ts';
import type { PaidCall, PaidCallOutcome, PaidCallRequest } from '../../../src/payments/server/paid-call.ts';
import {
  bindingOf,
  readPaymentIdentifier,
  withPaymentIdentifiers,
} from '../../../src/payments/server/payment-identifier.ts';
import {
  PAYMENT_IDENTIFIER_DECLARATION,
  type PaymentTerms,
} from '../../../src/payments/server/payment-terms.ts';
import { REDELIVERY_WINDOW_MS } from '../../../src/payments/server/undelivered.ts';

const ACCEPTED: PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:8453',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  amount: '10000',
  payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  maxTimeoutSeconds: 45,
  extra: { name: 'USD Coin', version: '2' },
};
const PAYER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const RECEIPT = {
  success: true,
  transaction: `0x${'ab'.repeat(32)}`,
  network: 'eip155:8453',
  payer: PAYER,
} as const;
const TERMS = { resource: { url: 'https://x/v1/cert' } } as PaymentTerms;

/** A payload as the official client builds it: the server's extensions echoed, `id` appended. */
function payload(nonce: string, id?: unknown): PaymentPayload {
  const extensions: Record<string, unknown> = structuredClone({ ...PAYMENT_IDENTIFIER_DECLARATION });
  if (typeof id === 'string' && /^[\w-]{16,128}$/.test(id))
    appendPaymentIdentifierToExtensions(extensions, id);
  else if (id !== undefined)
    (extensions[PAYMENT_IDENTIFIER] as { info: Record<string, unknown> }).info.id = id;
  return {
    x402Version: 2,
    accepted: ACCEPTED,
    extensions,
    payload: {
      signature: `0x${nonce.repeat(130)}`,
      authorization: {
        from: PAYER,
        to: ACCEPTED.payTo,
        value: '10000',
        validAfter: '0',
        validBefore: '9',
        nonce: `0x${nonce.repeat(64)}`,
      },
    },
  } as PaymentPayload;
}

function request(paid: PaymentPayload, overrides: Partial<PaidCallRequest> = {}): PaidCallRequest {
  return {
    terms: TERMS,
    payment: { kind: 'payload', payload: paid },
    run: async () => ({ type: 'result', result: {} }),
    signal: new AbortController().signal,
    name: '/v1/cert',
    subject: 'example.com',
    ...overrides,
  };
}

/** The inner paid call: counts its calls (each one would verify, run and maybe settle) and answers `next`. */
let inner: { calls: number; next: () => Promise<PaidCallOutcome> };
let clock: number;
let answers: IdentifiedAnswers;
let paidCall: PaidCall;

beforeEach(() => {
  clock = 1_000_000;
  let runs = 0;
  inner = {
    calls: 0,
    next: async () => ({
      kind: 'delivered',
      result: { domain: 'example.com', run: ++runs },
      receipt: RECEIPT,
    }),
  };
  answers = createIdentifiedAnswers(() => clock);
  const counted: PaidCall = async () => {
    inner.calls += 1;
    return inner.next();
  };
  paidCall = withPaymentIdentifiers(counted, {
    answers,
    logger: pino({ level: 'silent' }),
    metrics: noMetrics,
  });
});

describe('readPaymentIdentifier', () => {
  it('reads a valid id, and none from a payload without the extension or from the bare echo', () => {
    const id = generatePaymentId();
    expect(readPaymentIdentifier(payload('1', id))).toEqual({ kind: 'id', id });
    expect(readPaymentIdentifier(payload('1'))).toEqual({ kind: 'none' });
    expect(readPaymentIdentifier({ ...payload('1'), extensions: undefined })).toEqual({ kind: 'none' });
  });

  it.each([
    ['15 characters', 'a'.repeat(15)],
    ['129 characters', 'a'.repeat(129)],
    ['Unicode letters', 'pay_ünïcødé_0123456789'],
    ['a fullwidth digit', `pay_${'1'.repeat(15)}１`],
    ['SQL-shaped', "pay_'; DROP TABLE x;--"],
    ['a path', 'pay_../../etc/passwd_0000'],
    ['CRLF and a header', 'pay_0123456789abcdef\r\nSet-Cookie: a=b'],
    ['a NUL byte', 'pay_0123456789abcdef\u0000'],
    ['Redis-key-shaped', 'pay_0123456789abcdef:lock:*'],
    ['a number', 1234567890123456],
    ['an object', { $gt: '' }],
    ['null', null],
    ['empty', ''],
  ])('refuses an id that is %s', (_what, id) => {
    expect(readPaymentIdentifier(payload('1', id))).toMatchObject({ kind: 'invalid' });
  });

  it('refuses an extension that is not an object with an info object, without compiling any schema the payer sent', () => {
    for (const extension of ['pay_0123456789abcdef', [], { info: 'x' }, { schema: { pattern: '(a+)+$' } }]) {
      const paid = { ...payload('1'), extensions: { [PAYMENT_IDENTIFIER]: extension } } as PaymentPayload;
      expect(readPaymentIdentifier(paid)).toMatchObject({ kind: 'invalid' });
    }
    const hostileSchema = payload('1', generatePaymentId());
    (hostileSchema.extensions?.[PAYMENT_IDENTIFIER] as { schema: unknown }).schema = {
      $ref: 'http://169.254.169.254/',
    };
    expect(readPaymentIdentifier(hostileSchema)).toMatchObject({ kind: 'id' });
  });

  it('advertises the SDK declaration: optional, with its schema', () => {
    expect(PAYMENT_IDENTIFIER_DECLARATION).toEqual({
      [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false),
    });
  });
});

describe('bindingOf', () => {
  it('is the same for the same payload in another key order, and differs for another payment or request', async () => {
    const paid = payload('1', 'pay_0123456789abcdef');
    const reordered = JSON.parse(JSON.stringify(paid, Object.keys(paid).reverse())) as PaymentPayload;
    reordered.payload = paid.payload;
    reordered.accepted = paid.accepted;
    reordered.extensions = paid.extensions;
    const base = await bindingOf(paid, request(paid));
    expect(await bindingOf(reordered, request(reordered))).toBe(base);
    const others = [
      bindingOf(payload('2', 'pay_0123456789abcdef'), request(paid)),
      bindingOf(paid, request(paid, { subject: 'example.org' })),
      bindingOf(paid, request(paid, { name: 'check_cert' })),
      bindingOf({ ...paid, accepted: { ...ACCEPTED, amount: '30000' } }, request(paid)),
    ];
    for (const other of await Promise.all(others)) expect(other).not.toBe(base);
  });

  it('holds digests only, never the signature', async () => {
    const paid = payload('1', 'pay_0123456789abcdef');
    expect(await bindingOf(paid, request(paid))).toMatch(/^[0-9a-f]{64}\.[0-9a-f]{64}$/);
  });
});

describe('withPaymentIdentifiers', () => {
  it('answers the same payment again with the stored answer and receipt, without a second call, after delivery', async () => {
    const paid = payload('1', generatePaymentId());
    const first = await paidCall(request(paid));
    expect(first).toEqual({ kind: 'delivered', result: { domain: 'example.com', run: 1 }, receipt: RECEIPT });
    clock += REDELIVERY_WINDOW_MS - 1;
    const copy = JSON.parse(JSON.stringify(paid)) as PaymentPayload;
    expect(await paidCall(request(copy))).toEqual(first);
    expect(inner.calls).toBe(1);
  });

  it('forgets the answer after the redelivery window: the copy goes to the paid call (whose chain refuses it)', async () => {
    const paid = payload('1', generatePaymentId());
    await paidCall(request(paid));
    clock += REDELIVERY_WINDOW_MS;
    await paidCall(request(paid));
    expect(inner.calls).toBe(2);
  });

  it('answers 409 to the same id with another payment, another domain or another route, without a call', async () => {
    const id = generatePaymentId();
    const paid = payload('1', id);
    await paidCall(request(paid));
    expect(await paidCall(request(payload('2', id)))).toEqual({ kind: 'identifier_conflict' });
    expect(await paidCall(request(paid, { subject: 'example.org' }))).toEqual({
      kind: 'identifier_conflict',
    });
    expect(await paidCall(request(paid, { name: 'check_cert' }))).toEqual({ kind: 'identifier_conflict' });
    expect(inner.calls).toBe(1);
  });

  it('keeps ids apart per payer: another payer may use the same id', async () => {
    const id = generatePaymentId();
    await paidCall(request(payload('1', id)));
    const other = payload('2', id);
    (other.payload as { authorization: { from: string } }).authorization.from = ACCEPTED.payTo;
    expect((await paidCall(request(other))).kind).toBe('delivered');
    expect(inner.calls).toBe(2);
  });

  it('refuses a malformed id before any payment logic', async () => {
    expect(await paidCall(request(payload('1', 'short')))).toMatchObject({ kind: 'invalid_identifier' });
    expect(inner.calls).toBe(0);
  });

  it('passes a payment without an id, and what is not a payload, straight through', async () => {
    await paidCall(request(payload('1')));
    await paidCall(request(payload('1')));
    await paidCall({ ...request(payload('1')), payment: { kind: 'absent' } });
    expect(inner.calls).toBe(3);
  });

  it('frees the id when nothing was charged, so the payer can pay with it again', async () => {
    const id = generatePaymentId();
    inner.next = async () => ({ kind: 'payment_unavailable' });
    expect(await paidCall(request(payload('1', id)))).toEqual({ kind: 'payment_unavailable' });
    inner.next = async () => {
      throw new Error('check crashed');
    };
    await expect(paidCall(request(payload('2', id)))).rejects.toThrow('check crashed');
    inner.next = async () => ({ kind: 'delivered', result: { domain: 'example.com' }, receipt: RECEIPT });
    expect((await paidCall(request(payload('3', id)))).kind).toBe('delivered');
    expect(inner.calls).toBe(3);
  });

  it('answers a concurrent copy 409 in flight, and another payment under the id 409 conflict, while the first runs', async () => {
    const id = generatePaymentId();
    let finish: () => void = () => {};
    const held = new Promise<void>((resolve) => (finish = resolve));
    let entered: () => void = () => {};
    const running = new Promise<void>((resolve) => (entered = resolve));
    const next = inner.next;
    inner.next = async () => {
      entered();
      await held;
      return next();
    };
    const first = paidCall(request(payload('1', id)));
    await running;
    const [copy, other] = await Promise.all([
      paidCall(request(payload('1', id))),
      paidCall(request(payload('2', id))),
    ]);
    expect(copy).toEqual({ kind: 'in_flight' });
    expect(other).toEqual({ kind: 'identifier_conflict' });
    finish();
    expect((await first).kind).toBe('delivered');
    expect(inner.calls).toBe(1);
  });

  it('takes over an id whose holder died once its lease is over', async () => {
    const id = generatePaymentId();
    const dead = await answers.begin(
      `${PAYER.toLowerCase()}:${id}`,
      await bindingOf(payload('1', id), request(payload('1', id))),
    );
    expect(dead.kind).toBe('begun');
    expect(await paidCall(request(payload('1', id)))).toEqual({ kind: 'in_flight' });
    clock += IDENTIFIED_LEASE_MS;
    expect((await paidCall(request(payload('1', id)))).kind).toBe('delivered');
  });

  it('answers 503 without calling when the store cannot be asked', async () => {
    const down: IdentifiedAnswers = {
      begin: () => Promise.reject(new Error('store down')),
      answer: async () => {},
      release: async () => {},
    };
    const call = withPaymentIdentifiers(
      async () => {
        inner.calls += 1;
        return inner.next();
      },
      { answers: down, logger: pino({ level: 'silent' }), metrics: noMetrics },
    );
    expect(await call(request(payload('1', generatePaymentId())))).toEqual({ kind: 'payment_unavailable' });
    expect(inner.calls).toBe(0);
  });
});
