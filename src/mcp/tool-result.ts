/**
 * Run outcomes and payment answers as MCP tool results. Every result carries `structuredContent`
 * and the same JSON as text (MCP 2025-11-25 tools: for clients without structured output); refusals
 * carry the same `code` values as the HTTP problem JSON, through the shared `outcomeProblem` mapping.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import type { InvalidReason } from '../domain/invalid-reasons.ts';
import { outcomeProblem, type RefusedOutcome } from '../vocabulary/outcome-problem.ts';
import { PROBLEM_CODES, type Problem } from '../vocabulary/problems.ts';

/** `_meta` key of the x402 receipt on a paid result (x402 MCP transport). */
export const PAYMENT_RESPONSE_META_KEY = 'x402/payment-response';

function toolResult(value: object, isError: boolean): CallToolResult {
  const structuredContent = value as Record<string, unknown>;
  const result: CallToolResult = {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent,
  };
  if (isError) result.isError = true;
  return result;
}

/** A successful result; `receipt`, when given, goes in `_meta["x402/payment-response"]`. */
export function successResult(value: object, receipt?: SettleResponse): CallToolResult {
  const result = toolResult(value, false);
  if (receipt) result._meta = { [PAYMENT_RESPONSE_META_KEY]: receipt };
  return result;
}

/** The x402 challenge as an `isError` result: PaymentRequired in `structuredContent` and in `content[0].text`. */
export function paymentRequiredResult(paymentRequired: PaymentRequired): CallToolResult {
  return toolResult(paymentRequired, true);
}

/** A problem (as the HTTP API would send it) as an `isError` result: `{ code, message, upstreams?, reason? }`. */
export function problemResult(problem: Problem): CallToolResult {
  const { code, detail, upstreams, reason } = problem;
  return toolResult(
    { code, message: detail, ...(upstreams ? { upstreams } : {}), ...(reason ? { reason } : {}) },
    true,
  );
}

/** Invalid input or failed upstreams as an `isError` result; nothing was (or will be) charged. */
export function refusedResult(outcome: RefusedOutcome): CallToolResult {
  return problemResult(outcomeProblem(outcome));
}

/** A domain `normalizeDomain` refused: `invalid_domain` with the validator's reason, as the HTTP routes answer. */
export function invalidDomainResult(reason: InvalidReason): CallToolResult {
  return problemResult({
    status: 400,
    code: PROBLEM_CODES.invalidDomain,
    title: 'Invalid domain',
    detail: `${reason.message} Nothing was charged; validate_target explains what can be checked.`,
    reason,
  });
}

/** A missing or blank domain: `missing_domain`, as the HTTP routes answer. */
export function missingDomainResult(): CallToolResult {
  return problemResult({
    status: 400,
    code: PROBLEM_CODES.missingDomain,
    title: 'Missing domain',
    detail: 'The argument `domain` is required, e.g. {"domain": "example.com"}. Nothing was charged.',
  });
}
