/**
 * The one reader of an exact EIP-3009 payment (x402 `exact` scheme on EVM): `payload.payload` checked field by
 * field and turned into one typed authorization with its key. The lock, the lost results, the
 * settling records, the broadcast journal, settlement and the settler object all take the key and
 * the fields from here, so they cannot disagree about which authorization a payload carries.
 */
import type { PaymentPayload } from '@x402/core/types';
import { isAddress } from 'viem';
import { z } from 'zod';

/**
 * Validity window a client signs for (`validBefore = now + maxTimeoutSeconds`): the check (≤ 12 s),
 * a settlement that normally confirms within a few 2 s blocks, the facilitator's `validBefore >= now
 * + 6 s` rule and clock skew. Kept short on purpose: once it has passed, an
 * unused authorization provably can never be used, which bounds how long an uncertain settlement
 * takes to decide (`facilitator/settlement.ts`).
 */
export const MAX_TIMEOUT_SECONDS = 45;

const UINT256_MAX = 2n ** 256n - 1n;
/**
 * An ERC-6492-wrapped smart-wallet signature carries its factory calldata; 8 KiB of bytes is far
 * beyond any real one and far below the header limit.
 */
const MAX_SIGNATURE_HEX = 2 + 2 * 8192;

/** 32 bytes of 0x-prefixed hex: an authorization's nonce, and the hash of the transaction that settles it. */
const BYTES32_HEX = /^0x[0-9a-fA-F]{64}$/;

/** Whether `value` is 32 bytes of 0x-prefixed hex. */
export function isBytes32Hex(value: string): value is `0x${string}` {
  return BYTES32_HEX.test(value);
}

const address = z
  .string()
  .refine((value) => isAddress(value), 'must be a 0x address (20 bytes, valid checksum)')
  .transform((value) => value as `0x${string}`);
const uint256 = z
  .string()
  .refine(
    (value) => /^\d{1,78}$/.test(value) && BigInt(value) <= UINT256_MAX,
    'must be a decimal integer string below 2^256',
  )
  .transform((value) => BigInt(value));

/** `payload` of an exact EIP-3009 payment: exactly these fields, nothing else. */
export const ExactEip3009Schema = z
  .strictObject({
    signature: z
      .string()
      .max(MAX_SIGNATURE_HEX, 'is too long')
      .regex(/^0x(?:[0-9a-fA-F]{2})+$/, 'must be 0x-prefixed hex bytes'),
    authorization: z.strictObject({
      from: address,
      to: address,
      value: uint256,
      validAfter: uint256,
      validBefore: uint256,
      nonce: z
        .string()
        .regex(BYTES32_HEX, 'must be 32 bytes of 0x-prefixed hex')
        .transform((value) => value.toLowerCase() as `0x${string}`),
    }),
  })
  .transform(({ signature, authorization }) => ({
    ...authorization,
    signature: signature.toLowerCase(),
    key: authorizationKey(authorization.from, authorization.nonce),
  }));

/** An exact EIP-3009 authorization as read: addresses as signed, nonce and signature lower-case, amounts and times as bigints. */
export type ExactAuthorization = z.output<typeof ExactEip3009Schema>;

/** The key of an authorization everywhere it is stored: `<payer>:<nonce>`, lower-case. */
export function authorizationKey(from: string, nonce: string): string {
  return `${from.toLowerCase()}:${nonce.toLowerCase()}`;
}

/** The authorization `payload` carries, or null when it is not an exact EIP-3009 payment. */
export function exactAuthorizationOf(payload: PaymentPayload): ExactAuthorization | null {
  const parsed = ExactEip3009Schema.safeParse(payload.payload);
  return parsed.success ? parsed.data : null;
}

/** The refusals of an authorization's time window, spelled as the payment SDK spells them. */
export const WINDOW_REFUSALS = {
  expired: 'invalid_exact_evm_payload_authorization_valid_before',
  notYetValid: 'invalid_exact_evm_payload_authorization_valid_after',
} as const;

/** A `validBefore` closer than this to now is refused: the transfer must still be mined before it. */
const VALID_BEFORE_MARGIN_S = 6n;

/** Why `authorization`'s window does not take a transfer at `nowMs`, or null when it does. */
export function windowRefusal(
  { validAfter, validBefore }: Pick<ExactAuthorization, 'validAfter' | 'validBefore'>,
  nowMs: number,
): string | null {
  const now = BigInt(Math.floor(nowMs / 1000));
  if (validBefore < now + VALID_BEFORE_MARGIN_S) return WINDOW_REFUSALS.expired;
  if (validAfter > now) return WINDOW_REFUSALS.notYetValid;
  return null;
}
