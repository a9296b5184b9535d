/**
 * x402 over MCP for the paid tools (x402 MCP transport): the payment read from
 * `_meta["x402/payment"]`, the call made by the same transport-neutral `paidCall` as HTTP, and its
 * outcome written as a tool result (the challenge and refusals as `isError` results).
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CheckRunners, PaidOperation } from '../catalog.ts';
import { normalizeDomain, type ValidDomain } from '../domain/normalize.ts';
import { PAYMENT_IN_FLIGHT } from '../payments/server/in-flight-lock.ts';
import {
  invalidPaymentIdentifier,
  PAYMENT_IDENTIFIER_CONFLICT,
} from '../payments/server/payment-identifier.ts';
import { type PaymentRead, readPaymentPayload } from '../payments/server/payment-payload.ts';
import { PAYMENT_UNAVAILABLE, SERVICE_STOPPING } from '../payments/server/payment-problem.ts';
import type { PaidCallOutcome } from '../payments/server/paid-call.ts';
import type { Payments } from '../payments/payments.ts';
import { PAYMENT_META_KEY } from '../vocabulary/x402-mcp-meta.ts';
import {
  invalidDomainResult,
  missingDomainResult,
  paymentRequiredResult,
  problemResult,
  refusedResult,
  successResult,
} from './tool-result.ts';

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

/** The refusal of an x402 v1 payment: the result's challenge says what to send instead. */
export const X402_V1_REFUSAL = `Invalid payment: this is an x402 v1 payment, and this service speaks x402 v2 only. Sign one of the \`accepts\` entries (x402Version 2) of this result and repeat the call with that PaymentPayload in _meta["${PAYMENT_META_KEY}"].`;

/** Reads `_meta["x402/payment"]`: absent, a v2 PaymentPayload object, or anything else (refused). */
export function readToolPayment(meta: Record<string, unknown> | undefined): PaymentRead {
  const value = meta?.[PAYMENT_META_KEY];
  if (value === undefined || value === null) return { kind: 'absent' };
  if (isX402V1(value)) return { kind: 'invalid', why: X402_V1_REFUSAL };
  return readPaymentPayload(
    value,
    `Invalid payment: _meta["${PAYMENT_META_KEY}"] must be an x402 v2 PaymentPayload object`,
  );
}

/** An object that says it is x402 v1 (`x402Version` 1). */
function isX402V1(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const version = (value as { x402Version?: unknown }).x402Version;
  return version === 1 || version === '1';
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
      payment: readToolPayment(meta),
      run: () => operation.run(runners, domain),
      signal,
      name: operation.tool,
      subject: domain.domain,
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
    case 'invalid_identifier':
      return problemResult(invalidPaymentIdentifier(outcome.why));
    case 'identifier_conflict':
      return problemResult(PAYMENT_IDENTIFIER_CONFLICT);
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
