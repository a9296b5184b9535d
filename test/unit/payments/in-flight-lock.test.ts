/** The in-flight lock: key derivation, single holder per key, release on every path. */
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createInFlightLock, inFlightGuard, paymentKey } from '../../../src/payments/in-flight-lock.ts';

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
  it('admits one holder per key until it releases; release is idempotent', () => {
    const lock = createInFlightLock();
    const release = lock.acquire('a');
    expect(release).not.toBeNull();
    expect(lock.acquire('a')).toBeNull();
    const other = lock.acquire('b');
    expect(lock.size).toBe(2);
    release?.();
    release?.();
    expect(lock.size).toBe(1);
    expect(lock.acquire('a')).not.toBeNull();
    other?.();
  });
});

describe('inFlightGuard', () => {
  function guardedApp() {
    const lock = createInFlightLock();
    const runs: string[] = [];
    let open = () => {};
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    const app = new Hono();
    app.onError((_error, c) => c.text('failed', 500));
    app.use(inFlightGuard(lock));
    app.get('/slow', async (c) => {
      runs.push('slow');
      await opened;
      return c.json({ ok: true });
    });
    app.get('/boom', () => {
      runs.push('boom');
      throw new Error('handler failed');
    });
    return { app, lock, runs, open };
  }

  it('answers a second copy of a signature 409 while the first runs, then frees the key', async () => {
    const { app, lock, runs, open } = guardedApp();
    const headers = { 'payment-signature': encodePaymentSignatureHeader(payload(FROM, NONCE)) };
    const first = app.request('/slow', { headers });
    await new Promise((resolve) => setImmediate(resolve));
    const second = await app.request('/slow', { headers });
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ code: 'payment_in_flight', status: 409 });
    expect(runs).toEqual(['slow']);
    open();
    expect((await first).status).toBe(200);
    expect(lock.size).toBe(0);
  });

  it('releases the key when the handler throws', async () => {
    const { app, lock } = guardedApp();
    const headers = { 'payment-signature': encodePaymentSignatureHeader(payload(FROM, NONCE)) };
    expect((await app.request('/boom', { headers })).status).toBe(500);
    expect(lock.size).toBe(0);
  });

  it('lets an undecodable header through to the SDK, unlocked', async () => {
    const { app, lock, runs, open } = guardedApp();
    const one = app.request('/slow', { headers: { 'payment-signature': 'not base64 !!' } });
    const two = app.request('/slow', { headers: { 'payment-signature': 'not base64 !!' } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toEqual(['slow', 'slow']);
    expect(lock.size).toBe(0);
    open();
    expect([(await one).status, (await two).status]).toEqual([200, 200]);
  });
});
