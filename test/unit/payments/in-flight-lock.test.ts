/** The in-flight lock and the one reader of an authorization: key, fields, single holder per key. */
import type { PaymentPayload } from '@x402/core/types';
import { describe, expect, it } from 'vitest';
import { authorizationKey, exactAuthorizationOf } from '../../../src/payments/exact-authorization.ts';
import { createInFlightLock } from '../../../src/payments/server/in-flight-lock.ts';

const FROM = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const NONCE = `0x${'AB'.repeat(32)}`;
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

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
      authorization: { from, to: TO, value: '10000', validAfter: '0', validBefore: '9', nonce },
    },
  };
}

describe('exactAuthorizationOf', () => {
  it('keys an authorization by payer and nonce, lower-case, whatever their case', () => {
    const read = exactAuthorizationOf(payload(FROM, NONCE));
    expect(read?.key).toBe(`${FROM.toLowerCase()}:${NONCE.toLowerCase()}`);
    expect(read?.key).toBe(authorizationKey(FROM, NONCE));
    expect(exactAuthorizationOf(payload(FROM.toLowerCase(), NONCE))?.key).toBe(
      exactAuthorizationOf(payload(FROM, NONCE.toLowerCase()))?.key,
    );
  });

  it('types what it reads: amounts and times as bigints, the signature lower-case', () => {
    const read = exactAuthorizationOf(payload(FROM, NONCE));
    expect(read).toMatchObject({ value: 10_000n, validAfter: 0n, validBefore: 9n, to: TO, from: FROM });
    expect(read?.signature).toBe(`0x${'11'.repeat(65)}`);
  });

  it('is null for anything but a whole exact EIP-3009 authorization (no reader fails open)', () => {
    const base = payload(FROM, NONCE);
    const withAuthorization = (authorization: unknown) =>
      ({ ...base, payload: { ...base.payload, authorization } }) as PaymentPayload;
    const authorization = (base.payload as { authorization: Record<string, unknown> }).authorization;
    expect(exactAuthorizationOf({ ...base, payload: {} })).toBeNull();
    expect(exactAuthorizationOf(payload('', NONCE))).toBeNull();
    expect(exactAuthorizationOf(payload(FROM, '0x12'))).toBeNull();
    expect(exactAuthorizationOf(withAuthorization({ ...authorization, nonce: 7 }))).toBeNull();
    expect(exactAuthorizationOf(withAuthorization({ ...authorization, validBefore: '1e9' }))).toBeNull();
    expect(
      exactAuthorizationOf(withAuthorization({ ...authorization, validBefore: '9'.repeat(79) })),
    ).toBeNull();
    expect(exactAuthorizationOf(withAuthorization({ ...authorization, extra: 1 }))).toBeNull();
    expect(exactAuthorizationOf(withAuthorization(null))).toBeNull();
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
