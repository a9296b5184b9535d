/**
 * The payment that buys a watch: its id derives from the payment's signature, so one signature buys
 * one watch and a client that lost its 201 claims the same watch with the same payment; its
 * authorization's payer, nonce and `validBefore` go on the pending record, so a watch whose paid
 * call was cut off can be settled from what the chain says (`pending-sweep.ts`).
 */
import { decodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { type ExactAuthorization, exactAuthorizationOf } from '../payments/exact-authorization.ts';

/** The exact EIP-3009 authorization a payment payload carries; null when it carries none. */
export function authorizationOfPayload(payload: unknown): ExactAuthorization | null {
  if (typeof payload !== 'object' || payload === null) return null;
  return exactAuthorizationOf(payload as PaymentPayload);
}

/** The authorization in a `PAYMENT-SIGNATURE` header; null when it cannot be read. */
export function authorizationOfHeader(header: string | undefined): ExactAuthorization | null {
  if (!header) return null;
  try {
    return authorizationOfPayload(decodePaymentSignatureHeader(header));
  } catch {
    return null;
  }
}
