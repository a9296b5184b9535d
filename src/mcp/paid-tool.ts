/**
 * x402 over MCP for the paid tools (x402 MCP transport, x402.md §4): the payment read from
 * `_meta["x402/payment"]`, the call made by the same transport-neutral `paidCall` as HTTP, and its
 * outcome written as a tool result (the challenge and refusals as `isError` results).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CheckRunners, PaidOperation } from '../catalog.ts';
import { normalizeDomain, type ValidDomain } from '../domain/normalize.ts';
import { PAYMENT_IN_FLIGHT } from '../payments/in-flight-lock.ts';
import { type PaymentRead, readPaymentPayload } from '../payments/payment-payload.ts';
import { PAYMENT_UNAVAILABLE, SERVICE_STOPPING } from '../payments/payment-problem.ts';
import type { PaidCallOutcome } from '../payments/paid-call.ts';
import type { Payments } from '../payments/payments.ts';
import {
  invalidDomainResult,
  missingDomainResult,
  paymentRequiredResult,
  problemResult,
  refusedResult,
  successResult,
} from './tool-result.ts';

/** `_meta` key carrying the client's PaymentPayload on a paid `tools/call` (x402.md §4.1). */
export const PAYMENT_META_KEY = 'x402/payment';

export interface PaidToolDeps {
  runners: CheckRunners;
  payments: Payments;
}

/** Calls one paid operation for `domainInput` with the payment in `meta` (the request's `_meta`). */
export type PaidToolCall = (
  operation: PaidOperation,
  domainInput: string,
  meta: Record<string, unknown> | undefined,
  signal: AbortSignal,
) => Promise<CallToolResult>;

/** Reads `_meta["x402/payment"]`: absent, a v2 PaymentPayload object, or anything else (refused). */
function readPayment(meta: Record<string, unknown> | undefined): PaymentRead {
  const value = meta?.[PAYMENT_META_KEY];
  if (value === undefined || value === null) return { kind: 'absent' };
  return readPaymentPayload(
    value,
    `Invalid payment: _meta["${PAYMENT_META_KEY}"] must be an x402 v2 PaymentPayload object`,
  );
}

type Admission = { ok: true; domain: ValidDomain } | { ok: false; result: CallToolResult };

/** Builds the paid-tool caller; one per process is enough (it keeps no per-call state). */
export function createPaidToolCall(deps: PaidToolDeps): PaidToolCall {
  const { runners, payments } = deps;

  // The same pre-payment refusals as HTTP: validation, then the runners' own admission.
  async function admit(operation: PaidOperation, input: string): Promise<Admission> {
    if (input.trim() === '') return { ok: false, result: missingDomainResult() };
    const checked = normalizeDomain(input);
    if (!checked.valid) return { ok: false, result: invalidDomainResult(checked.reason) };
    const { valid: _valid, ...domain } = checked;
    const refusal = await runners.admit(operation.id, domain);
    return refusal ? { ok: false, result: refusedResult(refusal) } : { ok: true, domain };
  }

  return async function callPaidTool(operation, domainInput, meta, signal) {
    const admission = await admit(operation, domainInput);
    if (!admission.ok) return admission.result;
    if (!(await payments.facilitatorReady())) return problemResult(PAYMENT_UNAVAILABLE);

    const terms = await payments.terms.mcp(operation);
    const { domain } = admission;
    const outcome = await payments.paidCall({
      terms,
      payment: readPayment(meta),
      run: () => operation.run(runners, domain),
      signal,
      name: operation.tool,
    });
    return paidOutcomeResult(outcome);
  };
}

/** A paid call's outcome as a tool result: the challenge and refusals as `isError` results. */
export function paidOutcomeResult(outcome: PaidCallOutcome): CallToolResult {
  switch (outcome.kind) {
    case 'challenge':
      return paymentRequiredResult(outcome.paymentRequired);
    case 'in_flight':
      return problemResult(PAYMENT_IN_FLIGHT);
    case 'payment_unavailable':
    case 'client_gone':
      return problemResult(PAYMENT_UNAVAILABLE);
    case 'stopping':
      return problemResult(SERVICE_STOPPING);
    case 'not_run':
      return refusedResult(outcome.outcome);
    case 'delivered':
      return successResult(outcome.result as object, outcome.receipt);
  }
}
