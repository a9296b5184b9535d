/**
 * x402 over MCP for the paid tools (x402 MCP transport, x402.md §4): the challenge as an `isError`
 * result, the payment read from `_meta["x402/payment"]`, then verify → run → settle on the same
 * resource server as HTTP, settling only a successful check and only reporting a settle that succeeded.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PaymentPayloadV2Schema } from '@x402/core/schemas';
import type { HTTPRequestContext, x402ResourceServer } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements, ResourceInfo } from '@x402/core/types';
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import type { Logger } from 'pino';
import {
  type CheckRunners,
  DOMAIN_INPUT_JSON_SCHEMA,
  EXAMPLE_DOMAIN,
  type PaidOperation,
} from '../catalog.ts';
import type { Config } from '../config.ts';
import { normalizeDomain, type ValidDomain } from '../domain/normalize.ts';
import type { FacilitatorReady } from '../payments/facilitator-readiness.ts';
import { type InFlightLock, PAYMENT_IN_FLIGHT, paymentKey } from '../payments/in-flight-lock.ts';
import { outputExampleFor } from '../payments/output-examples.ts';
import { FACILITATOR_FAILED } from '../payments/payment-problem.ts';
import { paymentRequirementsFor } from '../payments/resource-server.ts';
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

/** The SDK's reason on a first, unpaid challenge (the same text as the HTTP 402). */
export const UNPAID_REASON = 'Payment required';

/** The x402 `resource.url` naming a tool: `mcp://tool/<name>` (the reference wrapper's default). */
export function toolResourceUrl(tool: string): string {
  return `mcp://tool/${tool}`;
}

export interface PaidToolDeps {
  config: Config;
  runners: CheckRunners;
  logger: Logger;
  /** The same resource server as the HTTP gate (`createResourceServer`). */
  resourceServer: x402ResourceServer;
  /** Shared with the HTTP gate: one signature runs once across both transports. */
  lock: InFlightLock;
  facilitatorReady: FacilitatorReady;
}

/** Calls one paid operation for `domainInput` with the payment in `meta` (the request's `_meta`). */
export type PaidToolCall = (
  operation: PaidOperation,
  domainInput: string,
  meta: Record<string, unknown> | undefined,
) => Promise<CallToolResult>;

interface PaymentTerms {
  requirements: PaymentRequirements[];
  resource: ResourceInfo;
  extensions: Record<string, unknown>;
}

type PaymentRead =
  { kind: 'absent' } | { kind: 'invalid'; why: string } | { kind: 'payload'; payload: PaymentPayload };

/** Reads `_meta["x402/payment"]`: absent, a v2 PaymentPayload object, or anything else (refused). */
function readPayment(meta: Record<string, unknown> | undefined): PaymentRead {
  const value = meta?.[PAYMENT_META_KEY];
  if (value === undefined || value === null) return { kind: 'absent' };
  const parsed = PaymentPayloadV2Schema.safeParse(value);
  if (!parsed.success) {
    return {
      kind: 'invalid',
      why: `Invalid payment: _meta["${PAYMENT_META_KEY}"] must be an x402 v2 PaymentPayload object`,
    };
  }
  return { kind: 'payload', payload: parsed.data as PaymentPayload };
}

type Admission = { ok: true; domain: ValidDomain } | { ok: false; result: CallToolResult };

/** Builds the paid-tool caller; one per process is enough (it keeps no per-call state). */
export function createPaidToolCall(deps: PaidToolDeps): PaidToolCall {
  const { config, runners, logger, resourceServer, lock, facilitatorReady } = deps;

  // The same pre-payment refusals as HTTP: validation, then the runners' own admission.
  async function admit(operation: PaidOperation, input: string): Promise<Admission> {
    if (input.trim() === '') return { ok: false, result: missingDomainResult() };
    const checked = normalizeDomain(input);
    if (!checked.valid) return { ok: false, result: invalidDomainResult(checked.reason) };
    const { valid: _valid, ...domain } = checked;
    const refusal = await runners.admit(operation.id, domain);
    return refusal ? { ok: false, result: refusedResult(refusal) } : { ok: true, domain };
  }

  // Terms depend only on the catalog and the configuration: built once per operation, after the
  // facilitator is ready (the scheme adds its `extra`), then reused by every call.
  const termsByOperation = new Map<PaidOperation['id'], PaymentTerms>();
  async function paymentTerms(operation: PaidOperation): Promise<PaymentTerms> {
    const known = termsByOperation.get(operation.id);
    if (known) return known;
    const terms = await buildTerms(operation);
    termsByOperation.set(operation.id, terms);
    return terms;
  }

  async function buildTerms(operation: PaidOperation): Promise<PaymentTerms> {
    const route = paymentRequirementsFor(operation, config);
    const options = Array.isArray(route.accepts) ? route.accepts : [route.accepts];
    return {
      // Price and payTo are static in the catalog, so the HTTP request context is never read.
      requirements: await resourceServer.buildPaymentRequirementsFromOptions(
        options,
        {} as HTTPRequestContext,
      ),
      resource: {
        url: toolResourceUrl(operation.tool),
        description: operation.summary,
        mimeType: 'application/json',
      },
      extensions: declareDiscoveryExtension({
        toolName: operation.tool,
        description: operation.description,
        transport: 'streamable-http',
        inputSchema: DOMAIN_INPUT_JSON_SCHEMA,
        example: { domain: EXAMPLE_DOMAIN },
        output: { example: outputExampleFor(operation.id) },
      }),
    };
  }

  async function challenge(
    terms: PaymentTerms,
    reason: string,
    payload?: PaymentPayload,
  ): Promise<CallToolResult> {
    const { requirements, resource, extensions } = terms;
    const required = await resourceServer.createPaymentRequiredResponse(
      requirements,
      resource,
      reason,
      extensions,
      undefined,
      payload,
    );
    return paymentRequiredResult(required);
  }

  async function verifyRunSettle(
    operation: PaidOperation,
    domain: ValidDomain,
    terms: PaymentTerms,
    payload: PaymentPayload,
    requirements: PaymentRequirements,
  ): Promise<CallToolResult> {
    let verified: Awaited<ReturnType<x402ResourceServer['verifyPayment']>>;
    try {
      verified = await resourceServer.verifyPayment(payload, requirements, terms.extensions);
    } catch (error) {
      logger.error({ err: error, tool: operation.tool }, 'x402 verify failed at the facilitator');
      return problemResult(FACILITATOR_FAILED);
    }
    if (!verified.isValid) return challenge(terms, verified.invalidReason ?? 'invalid_payment', payload);

    const outcome = await operation.run(runners, domain);
    if (outcome.type !== 'result') {
      logger.info({ tool: operation.tool, outcome: outcome.type }, 'payment not settled');
      return refusedResult(outcome);
    }

    const log = { tool: operation.tool, payer: verified.payer };
    try {
      // settlePayment resolves { success: false } on a facilitator refusal rather than throwing (x402.md §8.6).
      const settled = await resourceServer.settlePayment(payload, requirements, terms.extensions);
      if (!settled.success) {
        logger.warn({ ...log, reason: settled.errorReason }, 'settlement failed; result withheld');
        return challenge(terms, settled.errorReason ?? 'settlement_failed', payload);
      }
      logger.info({ ...log, transaction: settled.transaction, network: settled.network }, 'payment settled');
      return successResult(outcome.result as object, settled);
    } catch (error) {
      logger.error({ ...log, err: error }, 'settlement threw; result withheld');
      return challenge(terms, 'settlement_failed', payload);
    }
  }

  return async function callPaidTool(operation, domainInput, meta) {
    const admission = await admit(operation, domainInput);
    if (!admission.ok) return admission.result;
    if (!(await facilitatorReady())) return problemResult(FACILITATOR_FAILED);

    const terms = await paymentTerms(operation);
    const payment = readPayment(meta);
    if (payment.kind === 'absent') return challenge(terms, UNPAID_REASON);
    if (payment.kind === 'invalid') return challenge(terms, payment.why);
    const { payload } = payment;
    // An EIP-3009 authorization does not name the tool: refuse one signed for another tool's challenge.
    const paidFor = payload.resource?.url;
    if (paidFor !== undefined && paidFor !== terms.resource.url) {
      return challenge(terms, `Invalid payment: it was signed for ${paidFor}, not ${terms.resource.url}`);
    }
    const requirements = resourceServer.findMatchingRequirements(terms.requirements, payload);
    if (!requirements) return challenge(terms, 'No matching payment requirements', payload);

    const key = paymentKey(payload);
    const release = key === null ? () => {} : lock.acquire(key);
    if (!release) return problemResult(PAYMENT_IN_FLIGHT);
    try {
      return await verifyRunSettle(operation, admission.domain, terms, payload, requirements);
    } finally {
      release();
    }
  };
}
