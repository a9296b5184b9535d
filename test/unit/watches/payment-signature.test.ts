/** Reading the authorization that buys a watch from the header or the MCP payload: hostile input reads as none. */
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { describe, expect, it } from 'vitest';
import { authorizationOfHeader, authorizationOfPayload } from '../../../src/watches/payment-signature.ts';

const authorization = {
  from: '0x13e9A109C6946ae3d4E1bC07adB2a6329627Df1e',
  to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  value: '6667',
  validAfter: '0',
  validBefore: '1795751918',
  nonce: `0x${'AB'.repeat(32)}`,
};
const payload = {
  x402Version: 2,
  accepted: {},
  payload: { authorization, signature: `0x${'CD'.repeat(65)}` },
} as unknown as PaymentPayload;

describe('the authorization that buys a watch', () => {
  it('is read alike from the header and the MCP payload: payer, nonce and signature lower-case, validBefore', () => {
    const read = authorizationOfHeader(encodePaymentSignatureHeader(payload));
    expect(read).toEqual(authorizationOfPayload(payload));
    expect(read).toMatchObject({
      from: authorization.from,
      nonce: `0x${'ab'.repeat(32)}`,
      signature: `0x${'cd'.repeat(65)}`,
      validBefore: 1795751918n,
    });
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['not base64', '%%%'],
    ['base64 of no JSON', Buffer.from('not json').toString('base64')],
    ['JSON of no payload', Buffer.from('{"x402Version":2}').toString('base64')],
    ['a huge header', 'A'.repeat(1_000_000)],
    [
      'a nonce of the wrong length',
      encodePaymentSignatureHeader({
        ...payload,
        payload: { ...payload.payload, authorization: { ...authorization, nonce: '0x01' } },
      }),
    ],
    [
      'an injected field',
      encodePaymentSignatureHeader({
        ...payload,
        payload: { ...payload.payload, extra: "'; DROP TABLE watches;--" },
      }),
    ],
  ])('reads none from %s', (_name, header) => {
    expect(authorizationOfHeader(header)).toBeNull();
  });

  it.each([[null], [undefined], ['a string'], [42], [{ payload: null }], [{ payload: { signature: 1 } }]])(
    'reads none from the payload %j',
    (meta) => {
      expect(authorizationOfPayload(meta)).toBeNull();
    },
  );
});
