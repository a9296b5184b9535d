/**
 * The checks a payment passes before verification: the x402 v2 envelope, the exact EIP-3009 shape
 * (each refusal naming its field) and the resource it was signed for.
 */
import type { PaymentPayload } from '@x402/core/types';
import { describe, expect, it } from 'vitest';
import {
  exactPayloadProblem,
  readPaymentPayload,
  resourceProblem,
} from '../../../src/payments/server/payment-payload.ts';

const authorization = {
  from: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  value: '10000',
  validAfter: '0',
  validBefore: '1800000000',
  nonce: `0x${'ab'.repeat(32)}`,
};
const good = {
  x402Version: 2,
  resource: { url: 'https://checks.example/v1/cert' },
  accepted: {
    scheme: 'exact',
    network: 'eip155:8453',
    amount: '10000',
    asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    payTo: authorization.to,
    maxTimeoutSeconds: 45,
    extra: {},
  },
  payload: { signature: `0x${'cd'.repeat(65)}`, authorization },
} as unknown as PaymentPayload;

const withPayload = (payload: unknown) => ({ ...good, payload }) as PaymentPayload;
/** A payload whose authorization has `change` applied. */
const authorizedWith = (change: Record<string, unknown>) => ({
  signature: '0x00',
  authorization: { ...authorization, ...change },
});

describe('exactPayloadProblem', () => {
  it('accepts an exact EIP-3009 payload', () => {
    expect(exactPayloadProblem(good)).toBeNull();
  });

  it.for([
    [{ signature: '0x00' }, 'payload.authorization is missing'],
    [{ authorization }, 'payload.signature is missing'],
    [{ signature: 'cd'.repeat(65), authorization }, 'payload.signature must be 0x-prefixed hex bytes'],
    [{ signature: '0x', authorization }, 'payload.signature must be 0x-prefixed hex bytes'],
    [{ signature: `0x${'00'.repeat(9000)}`, authorization }, 'payload.signature is too long'],
    [{ signature: '0x00', authorization: [authorization] }, 'payload.authorization Invalid input'],
    [authorizedWith({ value: '1e400' }), 'payload.authorization.value must be a decimal'],
    [authorizedWith({ value: '-1' }), 'payload.authorization.value must be a decimal'],
    [authorizedWith({ validAfter: 0 }), 'payload.authorization.validAfter Invalid input'],
    [authorizedWith({ from: 'nobody' }), 'payload.authorization.from must be a 0x address'],
    [authorizedWith({ nonce: '0x01' }), 'payload.authorization.nonce must be 32 bytes'],
    [authorizedWith({ extra: 1 }), 'payload.authorization.extra is not a field'],
    [
      { signature: '0x00', authorization, permit2Authorization: {} },
      'payload.permit2Authorization is not a field',
    ],
    ['a string', 'payload Invalid input'],
  ] as const)('refuses %j naming the field', ([payload, reason]) => {
    expect(exactPayloadProblem(withPayload(payload))).toMatch(
      new RegExp(`^invalid_exact_evm_payload: ${reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
  });

  it('accepts 2^256 - 1 and refuses 2^256', () => {
    const at = (value: bigint) => exactPayloadProblem(withPayload(authorizedWith({ value: String(value) })));
    expect(at(2n ** 256n - 1n)).toBeNull();
    expect(at(2n ** 256n)).toMatch(/value must be a decimal integer string below 2\^256/);
  });

  it('never echoes an unprintable field name', () => {
    const reason = exactPayloadProblem(withPayload({ signature: '0x00', authorization, 'a\nb': 1 }));
    expect(reason).toBe('invalid_exact_evm_payload: payload.(unprintable) is not a field of this payload');
  });
});

describe('readPaymentPayload', () => {
  it('names the envelope field at fault', () => {
    const read = readPaymentPayload(
      { ...good, accepted: { ...good.accepted, maxTimeoutSeconds: '45' } },
      'Invalid',
    );
    expect(read).toEqual({
      kind: 'invalid',
      why: expect.stringMatching(/^Invalid \(accepted\.maxTimeoutSeconds /),
    });
    expect(readPaymentPayload({ ...good, x402Version: 1 }, 'Invalid')).toMatchObject({ kind: 'invalid' });
    expect(readPaymentPayload(good, 'Invalid')).toMatchObject({ kind: 'payload' });
  });
});

describe('resourceProblem', () => {
  const url = 'https://checks.example/v1/cert';
  const signedFor = (signed: string | undefined) =>
    resourceProblem(
      { ...good, resource: signed === undefined ? undefined : { url: signed } } as PaymentPayload,
      url,
    );

  it('accepts the resource itself, with any query (the domain is the payer’s), or none named', () => {
    expect(signedFor(url)).toBeNull();
    expect(signedFor(`${url}?domain=other.example`)).toBeNull();
    expect(signedFor(`${url}#x`)).toBeNull();
    expect(signedFor(undefined)).toBeNull();
  });

  it('refuses another route or a tool, naming both', () => {
    expect(signedFor('https://checks.example/v1/dns')).toBe(
      `resource_mismatch: the payment was signed for https://checks.example/v1/dns, not ${url}`,
    );
    expect(signedFor('mcp://tool/check_cert')).toMatch(/signed for mcp:\/\/tool\/check_cert, not/);
    expect(signedFor(`${url}/../dns`)).toMatch(/^resource_mismatch/);
    expect(signedFor('https://checks.example/v1/cert/')).toMatch(/^resource_mismatch/);
  });

  it('binds a resource with a query of its own (a body) exactly, and refuses a payload naming none', () => {
    const bound = 'https://checks.example/v1/watches?domain=example.com&days=30';
    const payFor = (signed: string | undefined) =>
      resourceProblem(
        { ...good, resource: signed === undefined ? undefined : { url: signed } } as PaymentPayload,
        bound,
      );
    expect(payFor(bound)).toBeNull();
    expect(payFor('https://checks.example/v1/watches?domain=example.org&days=30')).toMatch(
      /^resource_mismatch: the payment was signed for \S+domain=example.org/,
    );
    expect(payFor('https://checks.example/v1/watches')).toMatch(/^resource_mismatch/);
    expect(payFor(`${bound}&webhook_url=x`)).toMatch(/^resource_mismatch/);
    expect(payFor(undefined)).toMatch(/^resource_mismatch: the payment names no resource/);
  });

  it('does not echo a long or unprintable resource', () => {
    expect(signedFor(`https://x/${'a'.repeat(300)}`)).toBe(
      `resource_mismatch: the payment was signed for another resource, not ${url}`,
    );
    expect(signedFor('https://x/\u0000')).toMatch(/signed for another resource/);
  });
});
