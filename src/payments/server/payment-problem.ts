/**
 * Problem JSON (RFC 9457) for the payment answers: 402 only for "pay" and "this payment is no
 * good", 503 `payment_unavailable` when payments cannot be taken, 503 while the process stops.
 * Reasons are the x402 codes or our own sentences, never an error's text.
 */
import type { PaymentRequired } from '@x402/core/types';
import { PROBLEM_CODES, type Problem } from '../../vocabulary/problems.ts';
import { UNPAID_REASON } from './paid-call.ts';

/** Seconds a client should wait before trying again after a 503. */
export const RETRY_AFTER_SECONDS = 5;

/** The facilitator, the RPC or the chain could not be used; nothing was charged. */
export const PAYMENT_UNAVAILABLE: Problem = {
  status: 503,
  code: PROBLEM_CODES.paymentUnavailable,
  title: 'Payments unavailable',
  detail:
    'Payments cannot be verified or settled right now (facilitator, RPC or chain unavailable). Nothing was charged and no result is returned; retry later with the same or a new authorization.',
};

/** The process is stopping and could not settle this request in time; nothing was charged. */
export const SERVICE_STOPPING: Problem = {
  status: 503,
  code: PROBLEM_CODES.shuttingDown,
  title: 'Service stopping',
  detail: 'The service is shutting down and did not settle this request. Nothing was charged; retry it.',
};

/**
 * The 402 problem for a challenge: an unpaid request, a payment refused for `paymentRequired.error`,
 * or (`settlementRefused`) a check that ran but whose settlement the payment could not pay.
 */
export function paymentRequiredProblem(
  paymentRequired: PaymentRequired,
  priceUsd: string,
  settlementRefused = false,
): Problem {
  const reason = paymentRequired.error ?? UNPAID_REASON;
  if (settlementRefused) {
    return {
      status: 402,
      code: PROBLEM_CODES.paymentRequired,
      title: 'Settlement failed',
      detail: `The check ran but the payment could not be settled (${reason}), so its result is withheld and nothing was charged. Sign a new authorization to retry.`,
      reason,
    };
  }
  if (reason === UNPAID_REASON) return unpaidProblem(priceUsd);
  if (INSUFFICIENT_BALANCE.has(reason)) {
    return {
      status: 402,
      code: PROBLEM_CODES.paymentRequired,
      title: 'Payment rejected',
      detail: `The payer holds too little USDC: $${priceUsd} needed. You were not charged; fund the payer's address and pay again.`,
      reason,
    };
  }
  return {
    status: 402,
    code: PROBLEM_CODES.paymentRequired,
    title: 'Payment rejected',
    detail: `The payment was rejected (${reason}); you were not charged. Sign a new authorization for an entry of the PAYMENT-REQUIRED header.`,
    reason,
  };
}

/** The 402 problem of a request without payment. */
export function unpaidProblem(priceUsd: string): Problem {
  return {
    status: 402,
    code: PROBLEM_CODES.paymentRequired,
    title: 'Payment required',
    detail: `This check costs $${priceUsd} in USDC. Sign one of the x402 v2 \`accepts\` entries in the PAYMENT-REQUIRED header and repeat the request with the PAYMENT-SIGNATURE header.`,
  };
}

/** The x402 reasons for a payer whose balance is below the price: a new signature would not help. */
const INSUFFICIENT_BALANCE = new Set(['invalid_exact_evm_insufficient_balance', 'insufficient_funds']);

/**
 * The 402 for a request carrying only x402 v1's `X-PAYMENT` header: the v2 challenge as for an
 * unpaid request, with a body that tells a v1 client what this service expects instead.
 */
export function x402V1Problem(priceUsd: string): Problem {
  return {
    status: 402,
    code: PROBLEM_CODES.paymentRequired,
    title: 'x402 v2 required',
    detail: `This service speaks x402 v2 only and does not read the X-PAYMENT header of x402 v1. This check costs $${priceUsd} in USDC: sign one of the \`accepts\` entries (x402Version 2) of the PAYMENT-REQUIRED header and repeat the request with the PAYMENT-SIGNATURE header.`,
    x402Version: 2,
  };
}
