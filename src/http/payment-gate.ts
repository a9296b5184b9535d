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
import type { PaymentRequired } from '@x402/core/types';
import type { Context } from 'hono';
import { LRUCache } from 'lru-cache';
import type { PaidOperation } from '../catalog.ts';
import { outcomeProblem } from '../vocabulary/outcome-problem.ts';
import { reply, replyJson } from './hygiene/standard-headers.ts';
import { sendProblem } from './send-problem.ts';
import { type Problem, PROBLEM_CODES, PROBLEM_MEDIA_TYPE, problemBody } from '../vocabulary/problems.ts';
import { headerChallenge } from '../payments/server/challenge-header.ts';
import { PAYMENT_IN_FLIGHT } from '../payments/server/in-flight-lock.ts';
import { type PaidCallOutcome, type PaidCallRequest, UNPAID_REASON } from '../payments/server/paid-call.ts';
import {
  invalidPaymentIdentifier,
  PAYMENT_IDENTIFIER_CONFLICT,
} from '../payments/server/payment-identifier.ts';
import { type PaymentRead, readPaymentPayload } from '../payments/server/payment-payload.ts';
import {
  PAYMENT_UNAVAILABLE,
  checkCost,
  paymentRequiredProblem,
  RETRY_AFTER_SECONDS,
  SERVICE_STOPPING,
  unpaidProblem,
  x402V1Problem,
} from '../payments/server/payment-problem.ts';
import type { PaymentTerms } from '../payments/server/payment-terms.ts';
import type { Payments } from '../payments/payments.ts';

/**
 * Answers one paid request about `subject` (the normalized domain), running the check through `run`
 * once the payment is verified, and `afterSettlement` once the payment is decided (`PaidCallRequest`).
 */
export type PaidHandler = (
  c: Context,
  run: PaidCallRequest['run'],
  subject: string,
  afterSettlement?: PaidCallRequest['afterSettlement'],
) => Promise<Response>;

/** A paid call whose terms are decided per request (a watch's price follows its `days`). */
export interface PaidSpec {
  /** For the log line: the route. */
  name: string;
  priceUsd: string;
  /** What the call buys and for how much, in the 402's words (default `checkCost`). */
  cost?: string;
  terms: () => Promise<PaymentTerms>;
  /** The status of a delivered result (default 200). */
  status?: 200 | 201;
  /** The result is found again for the same payment (`PaidCallRequest.keptResult`). */
  keptResult?: boolean;
}

export interface PaymentGate {
  /** The paid GET of `operation`. */
  paid(operation: PaidOperation): PaidHandler;
  /** A paid request of `spec`; the outcome's kind is left in the context's `payment` variable (for the log). */
  paidWith(spec: PaidSpec): PaidHandler;
  /** HEAD of a paid route: the unpaid challenge, whatever the request carries; nothing runs. */
  challenge(operation: PaidOperation): (c: Context) => Promise<Response>;
}

const RETRY_AFTER = { 'retry-after': String(RETRY_AFTER_SECONDS) };
/** A challenge is per request: never cached (the SDK's own `PAYMENT_REQUIRED_CACHE_CONTROL`). */
const NO_STORE = { 'cache-control': 'no-store' };
const PROBLEM_CONTENT = { 'content-type': PROBLEM_MEDIA_TYPE };

/**
 * The longest query a paid route takes. A challenge names the request's URL (`forRequestedUrl`) in
 * `PAYMENT-REQUIRED` and the client echoes it in `PAYMENT-SIGNATURE`: with this bound the 402's
 * headers fit nginx's default 4 KiB `proxy_buffer_size` (test/e2e/reverse-proxy.test.ts sends the
 * longest through nginx).
 */
export const MAX_PAID_QUERY = 512;

/** 414 for a paid route's query over `MAX_PAID_QUERY`, before any payment logic; else undefined. */
export function paidQueryTooLong(c: Context): Response | undefined {
  const { url } = c.req;
  const at = url.indexOf('?');
  if (at < 0 || url.length - at - 1 <= MAX_PAID_QUERY) return undefined;
  return sendProblem(c, {
    status: 414,
    code: PROBLEM_CODES.uriTooLong,
    title: 'URI too long',
    detail: `The query of a paid route is at most ${MAX_PAID_QUERY} characters. Nothing was charged.`,
  });
}

/** A 402 as written: the header's form of the challenge and the body with the challenge whole. */
interface ChallengeAnswer {
  header: string;
  body: string;
}

/**
 * What a test of the checks themselves passes instead of `Payments`: the paid routes run and answer
 * as free ones, and neither `/mcp` nor the watch routes are mounted. The service never passes it.
 */
export const NO_OP_GATE = Symbol('no-op payment gate');

export function createPaymentGate(payments: Payments): PaymentGate {
  const { paidCall, facilitatorReady, terms } = payments;
  // The unpaid challenge depends only on the operation (its resource URL aside): build it once.
  const unpaid = new Map<PaidOperation['id'], Promise<PaymentRequired>>();

  const unpaidChallengeOf = (t: PaymentTerms) => unpaidChallengeUnder(payments, t);

  function unpaidChallenge(operation: PaidOperation): Promise<PaymentRequired> {
    let challenge = unpaid.get(operation.id);
    if (!challenge) {
      challenge = terms.http(operation).then(unpaidChallengeOf);
      unpaid.set(operation.id, challenge);
      challenge.catch(() => unpaid.delete(operation.id));
    }
    return challenge;
  }

  // A fixed operation's unpaid 402 differs only by the request's query: its header and body are
  // written once per (operation, query) and kept, the whole answer bar the request's own headers.
  const unpaidAnswers = new LRUCache<string, ChallengeAnswer>({ max: 256 });

  function paidWith(
    spec: PaidSpec & { unpaidChallenge?: () => Promise<PaymentRequired>; cacheAs?: string },
  ): PaidHandler {
    const challengeOf = spec.unpaidChallenge ?? (() => spec.terms().then(unpaidChallengeOf));
    const cost = spec.cost ?? checkCost(spec.priceUsd);
    return async function paymentGate(c, run, subject, afterSettlement) {
      if (!(await facilitatorReady())) return sendProblem(c, PAYMENT_UNAVAILABLE, RETRY_AFTER);
      const payment = readPaymentHeader(c.req.header('payment-signature'));
      if (payment.kind === 'absent') {
        payments.metrics.payment('challenged');
        c.set('payment', { outcome: 'unpaid' });
        if (c.req.header('x-payment') !== undefined)
          return sendChallenge(c, challengeAnswer(c, await challengeOf(), x402V1Problem(cost)));
        return sendChallenge(
          c,
          await unpaidAnswer(unpaidAnswers, c, challengeOf(), () => unpaidProblem(cost), spec.cacheAs),
        );
      }
      const outcome = await paidCall({
        terms: await spec.terms(),
        payment,
        run,
        signal: c.req.raw.signal,
        name: spec.name,
        subject,
        ...(afterSettlement ? { afterSettlement } : {}),
        ...(spec.keptResult ? { keptResult: true } : {}),
      });
      return sendPaidOutcome(c, outcome, spec, cost);
    };
  }

  return {
    challenge: (operation) =>
      async function paymentChallenge(c) {
        if (!(await facilitatorReady())) return sendProblem(c, PAYMENT_UNAVAILABLE, RETRY_AFTER);
        const { header } = await unpaidAnswer(
          unpaidAnswers,
          c,
          unpaidChallenge(operation),
          () => unpaidProblem(checkCost(operation.priceUsd)),
          operation.id,
        );
        return reply(c, null, 402, { ...NO_STORE, 'payment-required': header });
      },

    paid: (operation) =>
      paidWith({
        name: operation.route,
        priceUsd: operation.priceUsd,
        terms: () => terms.http(operation),
        unpaidChallenge: () => unpaidChallenge(operation),
        cacheAs: operation.id,
      }),
    paidWith: (spec) => paidWith(spec),
  };
}

/** The unpaid challenge under `t` (its `resource.url` is the route's; `forRequestedUrl` adds the query). */
function unpaidChallengeUnder({ resourceServer }: Payments, t: PaymentTerms): Promise<PaymentRequired> {
  return resourceServer.createPaymentRequiredResponse(
    t.requirements,
    t.resource,
    UNPAID_REASON,
    t.extensions,
  );
}

/** The unpaid 402 of this request; `cacheAs` names terms that never change. */
async function unpaidAnswer(
  unpaidAnswers: LRUCache<string, ChallengeAnswer>,
  c: Context,
  challenge: Promise<PaymentRequired>,
  problem: () => Problem,
  cacheAs?: string,
): Promise<ChallengeAnswer> {
  if (cacheAs === undefined) return challengeAnswer(c, await challenge, problem());
  const { url } = c.req;
  const at = url.indexOf('?');
  const key = `${cacheAs}${at < 0 ? '' : url.slice(at)}`;
  let answer = unpaidAnswers.get(key);
  if (answer === undefined) {
    answer = challengeAnswer(c, await challenge, problem());
    unpaidAnswers.set(key, answer);
  }
  return answer;
}

function sendChallenge(
  c: Context,
  { header, body }: ChallengeAnswer,
  headers: Readonly<Record<string, string>> = {},
): Response {
  return reply(c, body, 402, { ...PROBLEM_CONTENT, ...NO_STORE, 'payment-required': header, ...headers });
}

/** The paid call's outcome as HTTP: the result with its receipt, or the problem that says why not. */
function sendPaidOutcome(c: Context, outcome: PaidCallOutcome, spec: PaidSpec, cost: string): Response {
  const settled =
    outcome.kind === 'delivered'
      ? outcome.receipt
      : outcome.kind === 'challenge'
        ? outcome.settlement
        : undefined;
  c.set('payment', { outcome: outcome.kind, tx: settled?.transaction || undefined });
  switch (outcome.kind) {
    case 'challenge': {
      const { paymentRequired, settlement } = outcome;
      const problem = paymentRequiredProblem(paymentRequired, spec.priceUsd, settlement !== undefined, cost);
      return sendChallenge(
        c,
        challengeAnswer(c, paymentRequired, problem),
        settlement ? { 'payment-response': encodePaymentResponseHeader(settlement) } : {},
      );
    }
    case 'in_flight':
      return sendProblem(c, PAYMENT_IN_FLIGHT);
    case 'invalid_identifier':
      return sendProblem(c, invalidPaymentIdentifier(outcome.why));
    case 'identifier_conflict':
      return sendProblem(c, PAYMENT_IDENTIFIER_CONFLICT);
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
}

/**
 * `paymentRequired` naming the route's public URL with this request's own query as `resource.url`:
 * the URL a listing crawler finds in a 402 is then one a paymentless GET answers with that same 402
 * (the route's bare URL lacks the required `domain`, which is a 400). A payment signed for it
 * matches the route whatever its query (`resourceProblem`). Terms whose URL has a query of their own
 * (a body carried in it) keep it.
 */
function forRequestedUrl(c: Context, paymentRequired: PaymentRequired): PaymentRequired {
  if (paymentRequired.resource.url.includes('?')) return paymentRequired;
  const route = paymentRequired.resource.url;
  const { search } = new URL(c.req.url);
  return { ...paymentRequired, resource: { ...paymentRequired.resource, url: `${route}${search}` } };
}

/**
 * The 402 of `paymentRequired` for this request: the header's form of the challenge (what a client
 * signs from, `challenge-header.ts`), and `problem` with the challenge whole beside it (its own
 * members do not overlap the problem's), for catalogues and readers of the body.
 */
function challengeAnswer(c: Context, paymentRequired: PaymentRequired, problem: Problem): ChallengeAnswer {
  const named = forRequestedUrl(c, paymentRequired);
  return {
    header: encodePaymentRequiredHeader(headerChallenge(named)),
    body: JSON.stringify({ ...problemBody(problem), ...named }),
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
