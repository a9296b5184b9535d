/**
 * Problem JSON (contract §2) for the answers the x402 middleware writes itself: its 402s carry an
 * empty `{}` body and its facilitator failures `{ error }`. The x402 headers stay as they are.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { PROBLEM_CODES, PROBLEM_MEDIA_TYPE, type Problem, problemBody } from '../http/problems.ts';

/** The facilitator could not be reached or answered garbage (the SDK's `FacilitatorResponseError`). */
export const FACILITATOR_FAILED: Problem = {
  status: 502,
  code: PROBLEM_CODES.upstreamFailed,
  title: 'Payment facilitator failed',
  detail:
    'The payment facilitator could not verify or settle the payment, so no result is returned. Retry with a new authorization.',
  upstreams: [{ name: 'facilitator', error: 'network' }],
};

/** The SDK's reason on a first, unpaid 402 (x402.md §2.5). */
const UNPAID_REASON = 'Payment required';

/**
 * The problem that replaces a response written by the x402 middleware, or null when `res` is not
 * one (a result, or a problem the route already wrote). `priceUsd` is the route's price.
 */
export function paymentProblem(res: Response, priceUsd: string): Problem | null {
  if (res.headers.get('content-type')?.startsWith(PROBLEM_MEDIA_TYPE)) return null;
  if (res.status === 402) return paymentRequiredProblem(res.headers, priceUsd);
  if (res.status === 502) return FACILITATOR_FAILED;
  if (res.status === 500) {
    return {
      status: 500,
      code: PROBLEM_CODES.internalError,
      title: 'Internal error',
      detail: 'The payment layer failed to handle this request. You were not charged.',
    };
  }
  return null;
}

function paymentRequiredProblem(headers: Headers, priceUsd: string): Problem {
  const receipt = decodeOrNull(headers.get('payment-response'), decodePaymentResponseHeader);
  if (receipt && !receipt.success) {
    return {
      status: 402,
      code: PROBLEM_CODES.paymentRequired,
      title: 'Settlement failed',
      detail: `The check ran but the payment could not be settled (${receipt.errorReason ?? 'unknown reason'}), so its result is withheld. Sign a new authorization to retry.`,
      reason: receipt.errorReason ?? null,
    };
  }
  const challenge = decodeOrNull(headers.get('payment-required'), decodePaymentRequiredHeader);
  const reason = challenge?.error ?? UNPAID_REASON;
  if (reason === UNPAID_REASON) {
    return {
      status: 402,
      code: PROBLEM_CODES.paymentRequired,
      title: 'Payment required',
      detail: `This check costs $${priceUsd} in USDC. Sign one of the x402 v2 \`accepts\` entries in the PAYMENT-REQUIRED header and repeat the request with the PAYMENT-SIGNATURE header.`,
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

function decodeOrNull<T>(header: string | null, decode: (value: string) => T): T | null {
  if (!header) return null;
  try {
    return decode(header);
  } catch {
    return null;
  }
}

/** `res` with its body replaced by `problem`; every header but the body's own is kept. */
export function withProblemBody(res: Response, problem: Problem): Response {
  const headers = new Headers(res.headers);
  headers.set('content-type', PROBLEM_MEDIA_TYPE);
  headers.delete('content-length');
  return new Response(JSON.stringify(problemBody(problem)), { status: problem.status, headers });
}
