/**
 * The x402 `payment-identifier` extension (x402 `specs/extensions/payment_identifier.md`) on every paid
 * route and tool: advertised as optional in each challenge; a payment that carries an `id` is looked
 * up before anything else is asked of it. The same payment for the same request gets the stored
 * answer with its receipt (no second check, no second charge) for the redelivery window; the same
 * `id` with another payment or for another request gets 409; a malformed `id` gets 400, before any
 * payment logic. The `id` is scoped by the payer the payment names, and bound to a digest of the
 * exact payment and a fingerprint of the request (scheme, network, asset, amount, payTo, resource,
 * domain), never to the signature itself.
 */
import type { PaymentPayload } from '@x402/core/types';
import {
  isValidPaymentId,
  PAYMENT_ID_MAX_LENGTH,
  PAYMENT_ID_MIN_LENGTH,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier';
import type { Logger } from 'pino';
import { PROBLEM_CODES, type Problem } from '../../vocabulary/problems.ts';
import type { Metrics } from '../../ops/metrics.ts';
import type { IdentifiedAnswers } from './identified-answers.ts';
import type { PaidCall, PaidCallOutcome, PaidCallRequest } from './paid-call.ts';

/** The 400 for a payment whose `payment-identifier` is malformed; `why` says what is wrong. */
export function invalidPaymentIdentifier(why: string): Problem {
  return {
    status: 400,
    code: PROBLEM_CODES.invalidPaymentIdentifier,
    title: 'Invalid payment identifier',
    detail: `${why} Nothing was charged and nothing ran. Send an id of ${PAYMENT_ID_MIN_LENGTH} to ${PAYMENT_ID_MAX_LENGTH} characters of A-Z, a-z, 0-9, "_" and "-" (e.g. "pay_" and a UUID without dashes), or none.`,
  };
}

/** The 409 for an `id` already bound to another payment or another request. */
export const PAYMENT_IDENTIFIER_CONFLICT: Problem = {
  status: 409,
  code: PROBLEM_CODES.paymentIdentifierConflict,
  title: 'Payment identifier already used',
  detail:
    'This payment identifier was already used by this payer with another payment or for another request; this one was not run or charged. To get the earlier answer again, resend the identical payment; for a new call, use a new identifier.',
};

/** A payment's identifier: none, malformed (with why), or a valid one. */
export type IdentifierRead = { kind: 'none' } | { kind: 'invalid'; why: string } | { kind: 'id'; id: string };

/**
 * `extensions["payment-identifier"].info.id` of `payload`. Only the `id` is read: the rest of the echo
 * is the extension-echo check's to judge, and the `schema` a payer sends is never compiled.
 */
export function readPaymentIdentifier(payload: PaymentPayload): IdentifierRead {
  const extension = payload.extensions?.[PAYMENT_IDENTIFIER];
  if (extension === undefined) return { kind: 'none' };
  const info = isObject(extension) ? extension.info : undefined;
  if (!isObject(info))
    return {
      kind: 'invalid',
      why: `extensions["${PAYMENT_IDENTIFIER}"] must be an object with an info object.`,
    };
  if (info.id === undefined) return { kind: 'none' };
  if (typeof info.id !== 'string' || !isValidPaymentId(info.id))
    return {
      kind: 'invalid',
      why: `extensions["${PAYMENT_IDENTIFIER}"].info.id is not a valid payment identifier.`,
    };
  return { kind: 'id', id: info.id };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Where the `id` is kept: under the payer the payment names (`<from>:<id>`). The name is not proven
 * before verification, which is why a record is also bound to the exact payment.
 */
export function identifierKey(payload: PaymentPayload, id: string): string {
  const from = (payload.payload as { authorization?: { from?: unknown } } | undefined)?.authorization?.from;
  return `${typeof from === 'string' ? from.toLowerCase() : ''}:${id}`;
}

/**
 * What a record binds its `id` to: the digest of the exact payment (key order aside) and of the
 * request's fingerprint — the terms it accepted, the route or tool, and the domain.
 */
export async function bindingOf(payload: PaymentPayload, request: PaidCallRequest): Promise<string> {
  const { scheme, network, asset, amount, payTo } = payload.accepted;
  // The route or tool, not the resource URL: instances behind one name may each know their own origin.
  const fingerprint = [scheme, network, asset, amount, payTo, request.name, request.subject];
  const [payment, call] = await Promise.all([
    sha256(canonicalJson(payload)),
    sha256(JSON.stringify(fingerprint)),
  ]);
  return `${payment}.${call}`;
}

/** JSON with every object's keys sorted, so a payload re-encoded in another key order is the same payload. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    isObject(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export interface PaymentIdentifierDeps {
  answers: IdentifiedAnswers;
  logger: Logger;
  metrics: Metrics;
}

/** `paidCall` with payment identifiers honoured around it; a payment without an `id` goes through as it is. */
export function withPaymentIdentifiers(paidCall: PaidCall, deps: PaymentIdentifierDeps): PaidCall {
  const { answers, logger, metrics } = deps;
  return async function identifiedPaidCall(request): Promise<PaidCallOutcome> {
    const { payment, name } = request;
    if (payment.kind !== 'payload') return paidCall(request);
    const read = readPaymentIdentifier(payment.payload);
    if (read.kind === 'none') return paidCall(request);
    if (read.kind === 'invalid') {
      metrics.payment('refused');
      return { kind: 'invalid_identifier', why: read.why };
    }

    const key = identifierKey(payment.payload, read.id);
    const binding = await bindingOf(payment.payload, request);
    // Unknown whether an answer waits: running on could charge the same call twice.
    const found = await answers.begin(key, binding).catch(() => undefined);
    if (found === undefined) {
      logger.warn({ name }, 'payment identifiers unavailable');
      return { kind: 'payment_unavailable' };
    }
    switch (found.kind) {
      case 'conflict':
        metrics.payment('refused');
        return { kind: 'identifier_conflict' };
      case 'pending':
        return { kind: 'in_flight' };
      case 'answered': {
        const { result, receipt } = found.answer;
        metrics.payment('replayed');
        logger.info({ name, payer: receipt.payer, transaction: receipt.transaction }, 'paid answer replayed');
        return { kind: 'delivered', result, receipt };
      }
      case 'begun':
        break;
    }

    let outcome: PaidCallOutcome | undefined;
    try {
      outcome = await paidCall(request);
      return outcome;
    } finally {
      // Awaited: the answer must be found by a copy sent the moment this one is answered.
      await (
        outcome?.kind === 'delivered'
          ? answers.answer(key, found.token, { result: outcome.result, receipt: outcome.receipt })
          : answers.release(key, found.token)
      ).catch((error: unknown) =>
        logger.error({ err: error, name }, 'could not record a payment identifier'),
      );
    }
  };
}
