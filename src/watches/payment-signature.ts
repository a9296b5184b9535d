/**
 * The signature of the payment that buys a watch: its id derives from it, so one signature buys
 * one watch, and a client that lost its 201 claims the same watch with the same payment.
 */
import { decodePaymentSignatureHeader } from '@x402/core/http';

/** The EIP-3009 signature inside a payload (`payload.signature`), lower case; '' when none. */
export function signatureOfPayload(payload: unknown): string {
  const inner = (payload as { payload?: { signature?: unknown } } | null | undefined)?.payload;
  return typeof inner?.signature === 'string' ? inner.signature.toLowerCase() : '';
}

/** The signature in a `PAYMENT-SIGNATURE` header; '' when it cannot be read. */
export function signatureOfHeader(header: string | undefined): string {
  if (!header) return '';
  try {
    return signatureOfPayload(decodePaymentSignatureHeader(header));
  } catch {
    return '';
  }
}
