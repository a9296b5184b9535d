/**
 * The payment gate of the paid HTTP routes (x402 v2 over HTTP): reads `PAYMENT-SIGNATURE`, hands the
 * call to the transport-neutral `paidCall` and writes its outcome as HTTP: 402 with
 * `PAYMENT-REQUIRED`, 409, 503, the check's 400/502, or the result with `PAYMENT-RESPONSE`.
 */
import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from '@x402/core/http';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import type { Context } from 'hono';
import type { PaidOperation } from '../catalog.ts';
import type { RunOutcome } from '../checks/outcome.ts';
import { outcomeProblem } from '../http/outcome-problem.ts';
import { reply, replyJson } from '../http/hygiene/standard-headers.ts';
import { sendProblem } from '../http/problems.ts';
import { PAYMENT_IN_FLIGHT } from './in-flight-lock.ts';
import { UNPAID_REASON } from './paid-call.ts';
import { type PaymentRead, readPaymentPayload } from './payment-payload.ts';
import {
  PAYMENT_UNAVAILABLE,
  paymentRequiredProblem,
  RETRY_AFTER_SECONDS,
  SERVICE_STOPPING,
  x402V1Problem,
} from './payment-problem.ts';
import type { PaymentTerms } from './payment-terms.ts';
import type { Payments } from './payments.ts';

/** Answers one paid request, running the check through `run` once the payment is verified. */
export type PaidHandler = (c: Context, run: () => Promise<RunOutcome<unknown>>) => Promise<Response>;

/** A paid call whose terms are decided per request (a watch's price follows its `days`). */
export interface PaidSpec {
  /** For the log line: the route. */
  name: string;
  priceUsd: string;
  terms: () => Promise<PaymentTerms>;
  /** The status of a delivered result (default 200). */
  status?: 200 | 201;
}

export interface PaymentGate {
  /** The paid GET of `operation`. */
  paid(operation: PaidOperation): PaidHandler;
  /** A paid request of `spec`; the outcome's kind is left in the context's `payment` variable. */
  paidWith(spec: PaidSpec): PaidHandler;
  /** HEAD of a paid route: the unpaid challenge, whatever the request carries; nothing runs. */
  challenge(operation: PaidOperation): (c: Context) => Promise<Response>;
}

const RETRY_AFTER = { 'retry-after': String(RETRY_AFTER_SECONDS) };
/** A challenge is per request: never cached (the SDK's own `PAYMENT_REQUIRED_CACHE_CONTROL`). */
const NO_STORE = { 'cache-control': 'no-store' };

export function createPaymentGate(payments: Payments): PaymentGate {
  const { paidCall, facilitatorReady, terms } = payments;
  // The unpaid challenge depends only on the operation: encode its header once, not per request.
  const unpaid = new Map<PaidOperation['id'], Promise<string>>();

  /** The `PAYMENT-REQUIRED` header of an unpaid request under `t`. */
  const unpaidHeaderOf = (t: PaymentTerms) =>
    payments.resourceServer
      .createPaymentRequiredResponse(t.requirements, t.resource, UNPAID_REASON, t.extensions)
      .then(encodePaymentRequiredHeader);

  function unpaidHeader(operation: PaidOperation): Promise<string> {
    let header = unpaid.get(operation.id);
    if (!header) {
      header = terms.http(operation).then(unpaidHeaderOf);
      unpaid.set(operation.id, header);
      header.catch(() => unpaid.delete(operation.id));
    }
    return header;
  }

  function sendChallenge(
    c: Context,
    operation: Pick<PaidOperation, 'priceUsd'>,
    paymentRequired: PaymentRequired,
    { header, settlement }: { header?: string; settlement?: SettleResponse } = {},
  ) {
    const problem = paymentRequiredProblem(paymentRequired, operation.priceUsd, settlement !== undefined);
    return sendProblem(c, problem, {
      ...NO_STORE,
      'payment-required': header ?? encodePaymentRequiredHeader(paymentRequired),
      ...(settlement ? { 'payment-response': encodePaymentResponseHeader(settlement) } : {}),
    });
  }

  function paidWith(spec: PaidSpec & { unpaidHeader?: () => Promise<string> }): PaidHandler {
    const challengeHeader = spec.unpaidHeader ?? (() => spec.terms().then(unpaidHeaderOf));
    return async function paymentGate(c, run) {
      if (!(await facilitatorReady())) return sendProblem(c, PAYMENT_UNAVAILABLE, RETRY_AFTER);
      const payment = readPaymentHeader(c.req.header('payment-signature'));
      if (payment.kind === 'absent') {
        payments.metrics.payment('challenged');
        c.set('payment', { outcome: 'unpaid' });
        const header = await challengeHeader();
        if (c.req.header('x-payment') !== undefined)
          return sendProblem(c, x402V1Problem(spec.priceUsd), {
            ...NO_STORE,
            'payment-required': header,
          });
        return sendChallenge(c, spec, { x402Version: 2, error: UNPAID_REASON } as PaymentRequired, {
          header,
        });
      }
      const outcome = await paidCall({
        terms: await spec.terms(),
        payment,
        run,
        signal: c.req.raw.signal,
        name: spec.name,
      });
      const settled =
        outcome.kind === 'delivered'
          ? outcome.receipt
          : outcome.kind === 'challenge'
            ? outcome.settlement
            : undefined;
      c.set('payment', { outcome: outcome.kind, tx: settled?.transaction || undefined });
      switch (outcome.kind) {
        case 'challenge':
          return sendChallenge(c, spec, outcome.paymentRequired, { settlement: outcome.settlement });
        case 'in_flight':
          return sendProblem(c, PAYMENT_IN_FLIGHT);
        case 'payment_unavailable':
        case 'client_gone':
          return sendProblem(c, PAYMENT_UNAVAILABLE, RETRY_AFTER);
        case 'stopping':
          return sendProblem(c, SERVICE_STOPPING, RETRY_AFTER);
        case 'not_run':
          return sendProblem(c, outcomeProblem(outcome.outcome));
        case 'delivered':
          return replyJson(c, outcome.result, spec.status ?? 200, {
            'payment-response': encodePaymentResponseHeader(outcome.receipt),
            'cache-control': 'private, no-store',
          });
      }
    };
  }

  return {
    challenge: (operation) =>
      async function paymentChallenge(c) {
        if (!(await facilitatorReady())) return sendProblem(c, PAYMENT_UNAVAILABLE, RETRY_AFTER);
        return reply(c, null, 402, { ...NO_STORE, 'payment-required': await unpaidHeader(operation) });
      },

    paid: (operation) =>
      paidWith({
        name: operation.route,
        priceUsd: operation.priceUsd,
        terms: () => terms.http(operation),
        unpaidHeader: () => unpaidHeader(operation),
      }),
    paidWith: (spec) => paidWith(spec),
  };
}

/** The `PAYMENT-SIGNATURE` header: absent, not an x402 v2 payload (refused with a reason), or a payload. */
function readPaymentHeader(header: string | undefined): PaymentRead {
  if (header === undefined || header.trim() === '') return { kind: 'absent' };
  const why = 'Invalid payment: PAYMENT-SIGNATURE must be base64 JSON of an x402 v2 PaymentPayload';
  try {
    return readPaymentPayload(decodePaymentSignatureHeader(header), why);
  } catch {
    return { kind: 'invalid', why };
  }
}
