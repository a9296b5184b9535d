/** The in-flight lock: key derivation, single holder per key, release on every path. */
import type { PaymentPayload } from '@x402/core/types';
import { describe, expect, it } from 'vitest';
import { createInFlightLock, paymentKey } from '../../../src/payments/in-flight-lock.ts';

const FROM = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const NONCE = `0x${'AB'.repeat(32)}`;

function payload(from: string, nonce: string): PaymentPayload {
  return {
    x402Version: 2,
    accepted: {
      scheme: 'exact',
      network: 'eip155:8453',
      amount: '10000',
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      maxTimeoutSeconds: 300,
      extra: {},
    },
    payload: {
      signature: `0x${'11'.repeat(65)}`,
      authorization: { from, to: '0x0', value: '10000', validAfter: '0', validBefore: '9', nonce },
    },
  };
}

describe('paymentKey', () => {
  it('is payer and nonce, lower-case', () => {
    expect(paymentKey(payload(FROM, NONCE))).toBe(`${FROM.toLowerCase()}:${NONCE.toLowerCase()}`);
    expect(paymentKey(payload(FROM.toLowerCase(), NONCE))).toBe(
      paymentKey(payload(FROM, NONCE.toLowerCase())),
    );
  });

  it('is null without an EIP-3009 authorization', () => {
    expect(paymentKey(null)).toBeNull();
    expect(paymentKey({ payload: {} })).toBeNull();
    expect(paymentKey(payload('', NONCE))).toBeNull();
    expect(paymentKey({ payload: { authorization: { from: FROM, nonce: 7 } } })).toBeNull();
  });
});

describe('createInFlightLock', () => {
  it('admits one holder per key until it releases; release is idempotent', async () => {
    const lock = createInFlightLock();
    const release = await lock.acquire('a');
    expect(release).not.toBeNull();
    expect(await lock.acquire('a')).toBeNull();
    const other = await lock.acquire('b');
    expect(lock.size).toBe(2);
    await release?.();
    await release?.();
    expect(lock.size).toBe(1);
    expect(await lock.acquire('a')).not.toBeNull();
    await other?.();
  });
});
