/**
 * What a payment must look like before anything is asked of the facilitator or the chain: an x402
 * v2 PaymentPayload whose resource is the one requested and whose `payload` is an exact EIP-3009
 * authorization (the only kind the service asks for). Whatever fails here is the payer's mistake and
 * answers 402 with a reason naming the field; only what remains to fail inside verification (the
 * facilitator, the RPC, the chain) is an outage.
 */
import { PaymentPayloadV2Schema } from '@x402/core/schemas';
import type { PaymentPayload } from '@x402/core/types';
import { ExactEip3009Schema } from '../exact-authorization.ts';

/** The reason prefix of a payload that is not a valid exact EIP-3009 payload. */
const INVALID_PAYLOAD = 'invalid_exact_evm_payload';
/** The reason prefix of a payload signed for another route or tool. */
const RESOURCE_MISMATCH = 'resource_mismatch';

/** The payment a request carries: none, something that is not a v2 payload, or a payload. */
export type PaymentRead =
  { kind: 'absent' } | { kind: 'invalid'; why: string } | { kind: 'payload'; payload: PaymentPayload };

/** `value` read as an x402 v2 PaymentPayload; anything else is refused with `why` and the field at fault. */
export function readPaymentPayload(value: unknown, why: string): PaymentRead {
  const parsed = PaymentPayloadV2Schema.safeParse(value);
  return parsed.success
    ? { kind: 'payload', payload: parsed.data as PaymentPayload }
    : { kind: 'invalid', why: `${why} (${fieldProblem(parsed.error.issues)})` };
}

/** Why `payload.payload` is not an exact EIP-3009 payment, naming the field; null when it is one. */
export function exactPayloadProblem(payload: PaymentPayload): string | null {
  const parsed = ExactEip3009Schema.safeParse(payload.payload);
  return parsed.success ? null : `${INVALID_PAYLOAD}: ${fieldProblem(parsed.error.issues, ['payload'])}`;
}

/**
 * Why `payload` may not pay for `resourceUrl`, or null. A check's domain is a query parameter the
 * payer chose, so when `resourceUrl` has no query, a query or fragment on the signed-for URL is not
 * compared; a `resourceUrl` with a query (a watch's body, `watches/payment-terms.ts`) must be the
 * signed-for URL exactly. A payload that names no resource (x402 v2 makes it optional) is judged by
 * its requirements alone, unless the resource carries a body it must be bound to.
 */
export function resourceProblem(payload: PaymentPayload, resourceUrl: string): string | null {
  const signedFor = payload.resource?.url;
  const bound = resourceUrl.includes('?');
  if (signedFor === undefined) {
    return bound ? `${RESOURCE_MISMATCH}: the payment names no resource, and must name ${resourceUrl}` : null;
  }
  if ((bound ? signedFor : signedFor.replace(/[?#].*$/s, '')) === resourceUrl) return null;
  return `${RESOURCE_MISMATCH}: the payment was signed for ${printable(signedFor, 'another resource')}, not ${resourceUrl}`;
}

/** The payer's text, echoed only when it is short printable ASCII. */
function printable(text: string, otherwise: string): string {
  return /^[\x21-\x7e]{1,200}$/.test(text) ? text : otherwise;
}

/** What this file reads of an issue, from zod 4 (ours) or zod 3 (the x402 schemas'). */
interface Issue {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  keys?: readonly string[];
  received?: unknown;
}

/** The first issue as `field problem`, the field written as a path from the PaymentPayload. */
function fieldProblem(issues: readonly Issue[], base: PropertyKey[] = []): string {
  const [issue] = issues;
  if (!issue) return 'invalid';
  let path = [...base, ...issue.path];
  let problem = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const [key = ''] = issue.keys ?? [];
    path = [...path, key];
    problem = 'is not a field of this payload';
  } else if (
    issue.code === 'invalid_type' &&
    (issue.received === 'undefined' || / received undefined$/.test(issue.message))
  ) {
    problem = 'is missing';
  }
  const field = path
    .map((segment, index) =>
      typeof segment === 'number'
        ? `[${segment}]`
        : `${index === 0 ? '' : '.'}${printable(String(segment), '(unprintable)')}`,
    )
    .join('');
  return `${field || 'the payload'} ${problem}`;
}
