/**
 * Hostile payments against the paid routes on a local chain: each is refused with 402, the check
 * does not run, and neither the payer's nor the recipient's balance moves (read from the chain).
 */
import { x402Client } from '@x402/core/client';
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PaidService, startPaidService } from '../world/paid-service.ts';
import { authorizationOf, resigned } from '../world/payer-client.ts';

let service: PaidService;
const FUNDS = 1_000_000n; // 1 USDC, in atomic units
const CERT = '/v1/cert?domain=example.com';
const SITE_HEALTH = '/v1/site-health?domain=example.com';

beforeAll(async () => {
  service = await startPaidService();
});
afterAll(async () => {
  await service?.close();
});

async function signedFor(payer: PrivateKeyAccount, path: string): Promise<PaymentPayload> {
  return service.sign(payer, await service.challenge(path));
}

function onlyEntry(challenge: PaymentRequired): PaymentRequirements {
  const [entry] = challenge.accepts;
  if (!entry) throw new Error('the challenge has no accepts entry');
  return entry;
}

const signature = (payload: PaymentPayload) => ({
  'payment-signature': encodePaymentSignatureHeader(payload),
});

type Attack = (payer: PrivateKeyAccount) => Promise<{ path: string; headers: Record<string, string> }>;

const attacks: [string, Attack, RegExp][] = [
  [
    'a garbage PAYMENT-SIGNATURE',
    async () => ({ path: CERT, headers: { 'payment-signature': '%%% not base64 %%%' } }),
    /PAYMENT-SIGNATURE must be base64 JSON of an x402 v2 PaymentPayload/,
  ],
  [
    'a $0.01 signature on the $0.03 route (naming no resource and echoing no extension)',
    async (payer) => {
      const { resource: _resource, extensions: _extensions, ...bare } = await signedFor(payer, CERT);
      return { path: SITE_HEALTH, headers: signature(bare) };
    },
    /No matching payment requirements/,
  ],
  [
    'a signature paying another recipient',
    async (payer) => {
      const challenge = await service.challenge(CERT);
      const elsewhere = { ...onlyEntry(challenge), payTo: '0x000000000000000000000000000000000000dEaD' };
      return {
        path: CERT,
        headers: signature(await service.sign(payer, { ...challenge, accepts: [elsewhere] })),
      };
    },
    /No matching payment requirements/,
  ],
  [
    'a signature for another network',
    async (payer) => {
      const challenge = await service.challenge(CERT);
      const sepolia = { ...onlyEntry(challenge), network: 'eip155:84532' as const };
      // The attacker's own client: any EVM chain, no spend controls.
      const client = new x402Client().register('eip155:*', new ExactEvmScheme(payer)).setSpendControls(false);
      return {
        path: CERT,
        headers: signature(await client.createPaymentPayload({ ...challenge, accepts: [sepolia] })),
      };
    },
    /No matching payment requirements/,
  ],
  [
    'an authorization whose validBefore has passed',
    async (payer) => {
      const payload = await signedFor(payer, CERT);
      const expired = {
        ...authorizationOf(payload),
        validBefore: String(Math.floor(Date.now() / 1000) - 60),
      };
      return { path: CERT, headers: signature(await resigned(payer, payload, expired)) };
    },
    /valid_before/,
  ],
  [
    'an authorization valid for a day (its expiry would not bound an uncertain settlement)',
    async (payer) => {
      const payload = await signedFor(payer, CERT);
      const longLived = {
        ...authorizationOf(payload),
        validBefore: String(Math.floor(Date.now() / 1000) + 86_400),
      };
      return { path: CERT, headers: signature(await resigned(payer, payload, longLived)) };
    },
    /authorization_window_too_long/,
  ],
  [
    'a tampered nonce',
    async (payer) => {
      const payload = await signedFor(payer, CERT);
      const authorization = { ...authorizationOf(payload), nonce: `0x${'0'.repeat(63)}1` as const };
      return {
        path: CERT,
        headers: signature({ ...payload, payload: { ...payload.payload, authorization } }),
      };
    },
    /invalid_exact_evm_signature/,
  ],
  [
    'a tampered value',
    async (payer) => {
      const payload = await signedFor(payer, CERT);
      const authorization = { ...authorizationOf(payload), value: '1' };
      return {
        path: CERT,
        headers: signature({ ...payload, payload: { ...payload.payload, authorization } }),
      };
    },
    /invalid_exact_evm_(signature|payload_authorization_value_mismatch)/,
  ],
  [
    'the v1 X-PAYMENT header only',
    async (payer) => ({
      path: CERT,
      headers: { 'x-payment': encodePaymentSignatureHeader(await signedFor(payer, CERT)) },
    }),
    /Payment required/,
  ],
];

describe('hostile payments', () => {
  it.each(attacks)('refuses %s: 402, no run, balances unchanged', async (_name, attack, reason) => {
    const payer = await service.newPayer(FUNDS);
    const payTo0 = await service.chain.balanceOf(service.chain.payTo);
    const runs0 = service.runs();
    const { path, headers } = await attack(payer);
    const res = await fetch(new URL(path, service.url), { headers });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ code: 'payment_required' });
    expect(decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '').error).toMatch(reason);
    expect(service.runs()).toBe(runs0);
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS);
    expect(await service.chain.balanceOf(service.chain.payTo)).toBe(payTo0);
  });

  it('refuses a payer with no funds: 402 insufficient balance, no run', async () => {
    const payer = await service.newPayer(0n);
    const payTo0 = await service.chain.balanceOf(service.chain.payTo);
    const runs0 = service.runs();
    const res = await fetch(new URL(CERT, service.url), { headers: signature(await signedFor(payer, CERT)) });
    expect(res.status).toBe(402);
    expect(decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '').error).toBe(
      'invalid_exact_evm_insufficient_balance',
    );
    expect(service.runs()).toBe(runs0);
    expect(await service.chain.balanceOf(service.chain.payTo)).toBe(payTo0);
  });

  it('refuses a replay of a settled signature: 402 naming the transaction that settled it, charged once, run once', async () => {
    const payer = await service.newPayer(FUNDS);
    const payTo0 = await service.chain.balanceOf(service.chain.payTo);
    const headers = signature(await signedFor(payer, CERT));
    const runs0 = service.runs();
    const first = await fetch(new URL(CERT, service.url), { headers });
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const settled = decodePaymentResponseHeader(first.headers.get('payment-response') ?? '');
    const replay = await fetch(new URL(CERT, service.url), { headers });
    expect(replay.status).toBe(402);
    expect(decodePaymentRequiredHeader(replay.headers.get('payment-required') ?? '').error).toBe(
      `already_settled: transaction ${settled.transaction}`,
    );
    expect(service.runs()).toBe(runs0 + 1);
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - 10_000n);
    expect(await service.chain.balanceOf(service.chain.payTo)).toBe(payTo0 + 10_000n);
  });
});
