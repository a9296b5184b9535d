/**
 * One paid call, whatever the transport: challenge → lock the authorization → verify → run the
 * check → settle, settling only a result whose client is still there and only while the process
 * accepts settlements. HTTP (`http/payment-gate.ts`) and MCP (`mcp/paid-tool.ts`) map the outcome to their wire.
 */
import type { x402ResourceServer } from '@x402/core/server';
import {
  type PaymentPayload,
  type PaymentRequired,
  type PaymentRequirements,
  type SettleResponse,
  VerifyError,
  type VerifyResponse,
} from '@x402/core/types';
import type { Logger } from 'pino';
import type { RunOutcome } from '../../checks/outcome.ts';
import type { Lifecycle } from '../../lifecycle.ts';
import type { Metrics } from '../../ops/metrics.ts';
import type { ChainView } from '../chain/chain-view.ts';
import { CHAIN_TIME_MAX_AGE_MS, type ChainClock } from '../chain/chain-clock.ts';
import {
  type ExactAuthorization,
  exactAuthorizationOf,
  MAX_TIMEOUT_SECONDS,
  WINDOW_REFUSALS,
  windowRefusal,
} from '../exact-authorization.ts';
import { headerExtensions } from './challenge-header.ts';
import type { InFlightLock } from './in-flight-lock.ts';
import { exactPayloadProblem, type PaymentRead, resourceProblem } from './payment-payload.ts';
import type { PaymentTerms } from './payment-terms.ts';
import { faultScope } from '../chain/rpc-faults.ts';
import { authorizationWindowTooLong, type Settle } from '../facilitator/settlement.ts';
import type { Undelivered } from './undelivered.ts';

/** The SDK's reason on a first, unpaid challenge (x402 v2 specification). */
export const UNPAID_REASON = 'Payment required';

/** The reason prefix of a copy of a payment this service settled and handed over. */
export const ALREADY_SETTLED = 'already_settled';

/** The reason given to such a copy: it names the settlement's transaction. */
const alreadySettledReason = ({ transaction }: SettleResponse): string =>
  `${ALREADY_SETTLED}: transaction ${transaction || 'not known to this instance'}`;

export type PaidCallOutcome =
  /**
   * 402: pay, or this payment is no good (the reason is in `paymentRequired.error`); `settlement`
   * when the check ran and its settlement was refused.
   */
  | { kind: 'challenge'; paymentRequired: PaymentRequired; settlement?: SettleResponse }
  /** 409: another request carrying this authorization (or payment identifier) is running. */
  | { kind: 'in_flight' }
  /** 400 before any payment logic: the payment's `payment-identifier` is malformed (`payment-identifier.ts`). */
  | { kind: 'invalid_identifier'; why: string }
  /** 409: the payment identifier is bound to another payment or request (`payment-identifier.ts`). */
  | { kind: 'identifier_conflict' }
  /** 503: payments cannot be taken now (facilitator, RPC or chain); nothing charged. */
  | { kind: 'payment_unavailable' }
  /** The check gave no result (400/502); nothing settled. */
  | { kind: 'not_run'; outcome: Exclude<RunOutcome<unknown>, { type: 'result' }> }
  /** The client left before settlement; nothing settled, nobody to answer. */
  | { kind: 'client_gone' }
  /** The process is stopping and its grace for new settlements is over; nothing settled. */
  | { kind: 'stopping' }
  /** Paid (or sent and unconfirmable): deliver `result` with `receipt`. */
  | { kind: 'delivered'; result: unknown; receipt: SettleResponse };

export interface PaidCallDeps {
  /** What a paid call asks of the resource server: the challenge, the extensions, the match and verify. */
  resourceServer: Pick<
    x402ResourceServer,
    'createPaymentRequiredResponse' | 'validateExtensions' | 'findMatchingRequirements' | 'verifyPayment'
  >;
  settle: Settle;
  lock: InFlightLock;
  undelivered: Undelivered;
  lifecycle: Lifecycle;
  logger: Logger;
  metrics: Metrics;
  /**
   * Whether the chain shows an authorization used: asked when a settlement of it was begun by a
   * holder that is gone. Without it such a payment is judged by verification alone.
   */
  chain?: Pick<ChainView, 'authorizationUsed'>;
  /** The chain's clock, which authorizations' validity windows are judged by; default: ours. */
  clock?: Pick<ChainClock, 'now' | 'refresh'>;
  /**
   * Told, by the authorization's key, that a check gave its result and its settlement follows: the
   * in-process facilitator asks the chain its first questions then, and resolves once they have
   * left; the settlement is recorded while they are answered.
   */
  settlementFollows?: (authorizationKey: string) => Promise<void>;
}

export interface PaidCallRequest {
  /** The operation's terms on this transport; the caller has made sure the facilitator is ready. */
  terms: PaymentTerms;
  payment: PaymentRead;
  /** The work, once the payment is verified; it is told the authorization paying for it. */
  run: (paying: ExactAuthorization) => Promise<RunOutcome<unknown>>;
  /**
   * After the payment is decided, whatever the outcome (x402's `onAfterSettle`, with the failures
   * too): `delivered` when it settled and the result is handed to the transport. Awaited before the
   * outcome is returned, so a feature finishes its work before the answer leaves.
   */
  afterSettlement?: (delivered: boolean) => Promise<void>;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** For the log line: the route or tool. */
  name: string;
  /** What the call is about (the normalized domain): part of a payment identifier's fingerprint. */
  subject: string;
  /**
   * The work finds its result again for the same payment (a watch, derived from the signature that
   * bought it): a copy of a payment already settled and handed over gets that result again with
   * the same receipt, within the redelivery window. Otherwise (a check, whose result is not kept)
   * such a copy is told the payment was settled, naming its transaction.
   */
  keptResult?: boolean;
}

export type PaidCall = (request: PaidCallRequest) => Promise<PaidCallOutcome>;

export function createPaidCall(deps: PaidCallDeps): PaidCall {
  return async function paidCall(request) {
    const outcome = await decide(deps, request);
    await request.afterSettlement?.(outcome.kind === 'delivered').catch((error: unknown) => {
      deps.logger.error({ err: error, name: request.name }, 'the step after a settlement failed');
    });
    return outcome;
  };
}

/** A payment that passed every check made before its lock: it is paying for this call. */
interface Payable {
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  authorization: ExactAuthorization;
}

/** Screens the payment, then decides it under its authorization's in-flight lock. */
async function decide(deps: PaidCallDeps, request: PaidCallRequest): Promise<PaidCallOutcome> {
  const { lock, metrics } = deps;
  const { terms, payment, name } = request;
  if (payment.kind === 'absent') {
    metrics.payment('challenged');
    return challenge(deps, terms, UNPAID_REASON);
  }
  const screened =
    payment.kind === 'invalid' ? { reason: payment.why } : screen(deps, terms, payment.payload);
  if ('reason' in screened) {
    metrics.payment('refused');
    return challenge(deps, terms, screened.reason, screened.payload);
  }
  const { payload, authorization } = screened;
  // A lock that cannot be asked (a shared store out of reach) is never run without: 503.
  const release = await lock.acquire(authorization.key).catch(() => undefined);
  if (release === undefined) return unavailable(deps, name, 'payment lock unavailable');
  if (!release) return { kind: 'in_flight' };
  metrics.paidInFlight(1);
  try {
    const claim = await claimLost(deps, request, screened);
    switch (claim.next) {
      case 'unavailable':
        return unavailable(deps, name, claim.why);
      case 'redeliver':
        // Awaited inside the lock: a copy arriving meanwhile is in flight (409), not a second redelivery.
        return await redeliver(deps, request, authorization, claim.receipt);
      case 'refuse':
        metrics.payment('refused');
        return challenge(deps, terms, claim.reason, payload);
      case 'run':
        return await verifyRunSettle(deps, request, screened);
    }
  } finally {
    metrics.paidInFlight(-1);
    await release();
  }
}

/**
 * Why `payload` cannot pay for `terms`, with the payload when the challenge echoes it; else what
 * it pays with.
 */
function screen(
  { resourceServer, clock }: PaidCallDeps,
  terms: PaymentTerms,
  payload: PaymentPayload,
): Payable | { reason: string; payload?: PaymentPayload } {
  // A signature buys what it was signed for: its resource, the extensions it echoes, the terms.
  // The EIP-3009 authorization names none of them but the price, so routes of one price would
  // take each other's payloads without the first two (1.2.0 had the echo check from the SDK's
  // HTTP middleware; the terms built once per operation left it behind).
  const echo = resourceServer.validateExtensions(
    { extensions: headerExtensions(terms.extensions) } as PaymentRequired,
    payload,
  );
  const misdirected =
    resourceProblem(payload, terms.resource.url) ??
    (echo.valid ? null : `${echo.invalidReason}: extensions.${echo.extensionKey}`);
  if (misdirected) return { reason: misdirected };
  const requirements = resourceServer.findMatchingRequirements(terms.requirements, payload);
  if (!requirements) return { reason: 'No matching payment requirements', payload };
  // The service asks for exact EIP-3009 only: a payload of another shape is the payer's mistake
  // (402 naming the field), so what still throws inside verify is the facilitator, RPC or chain.
  const malformed = exactPayloadProblem(payload);
  const authorization = malformed ? null : exactAuthorizationOf(payload);
  if (!authorization) return { reason: malformed ?? 'invalid_exact_evm_payload' };
  if (clock) void clock.refresh(CHAIN_TIME_MAX_AGE_MS);
  if (authorizationWindowTooLong(authorization, MAX_TIMEOUT_SECONDS, clock?.now() ?? Date.now())) {
    return { reason: 'authorization_window_too_long', payload };
  }
  return { payload, requirements, authorization };
}

/** What a claim on the authorization's lost results leaves the call to do. */
type Claim =
  | { next: 'run' }
  | { next: 'redeliver'; receipt: SettleResponse }
  | { next: 'refuse'; reason: string }
  | { next: 'unavailable'; why: string };

async function claimLost(
  deps: PaidCallDeps,
  { terms, keptResult }: PaidCallRequest,
  { requirements, authorization }: Payable,
): Promise<Claim> {
  const { key, signature } = authorization;
  const lost = await deps.undelivered.claim(key, signature, terms.resource.url).catch(() => undefined);
  // Unknown whether a lost result waits: running on would settle into an already used authorization.
  if (lost === undefined) return { next: 'unavailable', why: 'lost results unavailable' };
  if (lost === 'interrupted') {
    const used = await paidBeforeItsSettlerWentAway(deps, authorization, requirements);
    if (used === undefined)
      return { next: 'unavailable', why: 'chain unreadable for an interrupted settlement' };
    if (used) return { next: 'redeliver', receipt: used };
    // Not used: its settler died before the chain took it (a transaction of it still waiting
    // somewhere is reconciled by this call's own settlement, which counts it as paid).
    return { next: 'run' };
  }
  if (lost && 'delivered' in lost) {
    return keptResult
      ? { next: 'redeliver', receipt: lost.delivered }
      : { next: 'refuse', reason: alreadySettledReason(lost.delivered) };
  }
  return lost ? { next: 'redeliver', receipt: lost } : { next: 'run' };
}

/** Verifies the payment, runs the work and settles its result: the call's first payment. */
async function verifyRunSettle(
  deps: PaidCallDeps,
  request: PaidCallRequest,
  { payload, requirements, authorization }: Payable,
): Promise<PaidCallOutcome> {
  const { resourceServer, logger, metrics } = deps;
  const { terms, run, name } = request;
  const verified = await faultScope(() =>
    resourceServer.verifyPayment(payload, requirements, terms.extensions).catch(facilitatorRefusal),
  ).catch(() => null);
  if (!verified || (!verified.value.isValid && verified.faulted))
    return unavailable(deps, name, 'payment verification unavailable');
  if (!verified.value.isValid) {
    const reason = verified.value.invalidReason ?? 'invalid_payment';
    // The payer signed a window the chain takes: asking for a new signature would fail the same way.
    if (deps.clock && refusedByOurClockAlone(reason, authorization, deps.clock.now()))
      return unavailable(deps, name, 'payment refused on this instance’s clock, which is off the chain’s');
    metrics.payment('refused');
    return challenge(deps, terms, reason, payload);
  }
  const payer = verified.value.payer;
  metrics.payment('verified');

  const outcome = await run(authorization);
  if (outcome.type !== 'result') {
    logger.info({ name, payer, outcome: outcome.type }, 'payment not settled');
    return { kind: 'not_run', outcome };
  }
  // Asked again once the settlement's first requests are on the wire (a turn of the event loop).
  const held = notSettling(deps, request, payer);
  if (held) return held;
  if (deps.settlementFollows) {
    await deps.settlementFollows(authorization.key);
    const stillHeld = notSettling(deps, request, payer);
    if (stillHeld) return stillHeld;
  }
  return settleResult(deps, request, { payload, requirements, authorization }, outcome.result, payer);
}

/** Why a payment whose work gave its result is not settled now: its client left, or the process is stopping. */
function notSettling(
  { lifecycle, logger }: PaidCallDeps,
  { signal, name }: PaidCallRequest,
  payer: string | undefined,
): PaidCallOutcome | undefined {
  if (signal.aborted) {
    logger.info({ name, payer }, 'client gone before settlement; payment not settled');
    return { kind: 'client_gone' };
  }
  if (!lifecycle.acceptingSettlements()) {
    logger.info({ name, payer }, 'stopping; payment not settled');
    return { kind: 'stopping' };
  }
  return undefined;
}

/** Settles a payment whose work gave `result`: delivered when paid, else withheld. */
async function settleResult(
  deps: PaidCallDeps,
  request: PaidCallRequest,
  { payload, requirements, authorization: { key, signature } }: Payable,
  result: unknown,
  payer: string | undefined,
): Promise<PaidCallOutcome> {
  const { settle, undelivered, lifecycle, logger, metrics } = deps;
  const { terms, name } = request;
  const settled = lifecycle.beginSettlement();
  // Recorded before anything is signed: should this process die from here on, whoever gets the
  // next copy of this payment finds the record and, if the chain took the payment, delivers.
  const recorded = await undelivered.settling(key, signature, terms.resource.url).then(
    () => true,
    () => false,
  );
  if (!recorded) {
    settled();
    return unavailable(deps, name, 'could not record the settlement');
  }
  const settlement = await settle(payload, requirements, terms.extensions).finally(settled);
  if (settlement.status === 'refused' || settlement.status === 'unavailable') forget(deps, key);
  switch (settlement.status) {
    case 'settled':
    case 'unconfirmed': {
      const { transaction, network, errorReason } = settlement.receipt;
      const entry = { name, payer, transaction, network };
      metrics.payment('settled', requirements.amount);
      await handedOver(deps, request, key, signature, settlement.receipt, entry);
      if (settlement.status === 'settled') logger.info(entry, 'payment settled');
      else logger.warn({ ...entry, reason: errorReason }, 'payment sent but unconfirmed; result delivered');
      return { kind: 'delivered', result, receipt: settlement.receipt };
    }
    case 'refused':
      metrics.payment('settlement_failed');
      logger.info({ name, payer, reason: settlement.reason }, 'settlement refused; result withheld');
      return challenge(deps, terms, settlement.reason, payload, {
        success: false,
        errorReason: settlement.reason,
        transaction: '',
        network: requirements.network,
        ...(payer ? { payer } : {}),
      });
    case 'unavailable':
      metrics.payment('settlement_failed');
      logger.warn({ name, payer }, 'settlement unavailable; result withheld, nothing charged');
      return { kind: 'payment_unavailable' };
  }
}

async function challenge(
  { resourceServer }: PaidCallDeps,
  terms: PaymentTerms,
  reason: string,
  payload?: PaymentPayload,
  settlement?: SettleResponse,
): Promise<PaidCallOutcome> {
  const { requirements, resource, extensions } = terms;
  const paymentRequired = await resourceServer.createPaymentRequiredResponse(
    requirements,
    resource,
    reason,
    extensions,
    undefined,
    payload,
  );
  return settlement
    ? { kind: 'challenge', paymentRequired, settlement }
    : { kind: 'challenge', paymentRequired };
}

/**
 * True when the facilitator refused `authorization` for its time window, which the chain's clock
 * (`chainNowMs`, as the token contract will judge it) takes: a remote facilitator judges it on its
 * own clock.
 */
function refusedByOurClockAlone(
  reason: string,
  authorization: ExactAuthorization,
  chainNowMs: number,
): boolean {
  const windowReasons: readonly string[] = Object.values(WINDOW_REFUSALS);
  return windowReasons.includes(reason) && windowRefusal(authorization, chainNowMs) === null;
}

function unavailable({ logger }: PaidCallDeps, name: string, why: string): PaidCallOutcome {
  logger.warn({ name }, why);
  return { kind: 'payment_unavailable' };
}

function remember(
  { undelivered, logger }: PaidCallDeps,
  key: string,
  signature: string,
  receipt: SettleResponse,
): void {
  undelivered
    .remember(key, signature, receipt)
    .catch((error: unknown) => logger.error({ err: error }, 'could not remember an undelivered result'));
}

function forget({ undelivered, logger }: PaidCallDeps, key: string): void {
  undelivered
    .settled(key)
    .catch((error: unknown) => logger.warn({ err: error }, 'could not clear a settling record'));
}

/**
 * Paid: the settling record becomes a handed-over one (or, the client already gone, a lost
 * result); should the client be gone before the answer is written (the transport aborts the
 * signal then, now or later), it may claim the result with the same authorization.
 */
async function handedOver(
  deps: PaidCallDeps,
  { signal }: PaidCallRequest,
  key: string,
  signature: string,
  receipt: SettleResponse,
  entry: object,
): Promise<void> {
  const { undelivered, logger } = deps;
  const lost = () => {
    remember(deps, key, signature, receipt);
    logger.warn(entry, 'paid result not delivered; it can be claimed once with the same payment');
  };
  if (signal.aborted) return lost();
  await undelivered
    .remember(key, signature, receipt, true)
    .catch((error: unknown) => logger.warn({ err: error }, 'could not record a handed-over result'));
  // Gone while that was written: an abort listener added now would never fire, and the record would
  // say handed over (a copy then told "already settled", charged without the result).
  if (signal.aborted) return lost();
  signal.addEventListener('abort', lost, { once: true });
}

/**
 * Runs the check again for a payment already settled whose result never reached its client; its
 * record goes once the result is handed over, and a redelivery that does not reach the client
 * either leaves the result claimable.
 */
async function redeliver(
  deps: PaidCallDeps,
  request: PaidCallRequest,
  paying: ExactAuthorization,
  receipt: SettleResponse,
): Promise<PaidCallOutcome> {
  const { key, signature } = paying;
  const outcome = await request.run(paying);
  if (outcome.type !== 'result') {
    // Kept as a lost result (a store that deleted it on the claim, as the Worker's does, has it again).
    remember(deps, key, signature, receipt);
    return { kind: 'not_run', outcome };
  }
  const entry = { name: request.name, payer: receipt.payer, transaction: receipt.transaction };
  await handedOver(deps, request, key, signature, receipt, entry);
  deps.logger.info(entry, 'paid result redelivered');
  return { kind: 'delivered', result: outcome.result, receipt };
}

/**
 * The receipt of an authorization the chain shows used, whose settler went away before anyone got
 * its result; null when unused; undefined when the chain cannot be read.
 */
async function paidBeforeItsSettlerWentAway(
  { chain }: PaidCallDeps,
  { from, nonce }: ExactAuthorization,
  requirements: PaymentRequirements,
): Promise<SettleResponse | null | undefined> {
  if (!chain) return null;
  const used = await chain
    .authorizationUsed(requirements.asset as `0x${string}`, from, nonce)
    .catch(() => undefined);
  if (used === undefined) return undefined;
  // The hash is the dead settler's to know; the chain holds the transfer under this authorization.
  return used ? { success: true, transaction: '', network: requirements.network, payer: from } : null;
}

/**
 * A remote facilitator that refuses a payment with a 4xx answer carrying `isValid: false` (the
 * SDK throws it as a `VerifyError`) has judged the payment: that is a refusal, as its 200 answer
 * would be. Its 5xx, an authentication or rate-limit refusal, and every other failure say that the
 * facilitator could not judge it, and are rethrown (503).
 */
function facilitatorRefusal(error: unknown): VerifyResponse {
  if (
    error instanceof VerifyError &&
    error.statusCode >= 400 &&
    error.statusCode < 500 &&
    ![401, 403, 408, 429].includes(error.statusCode)
  ) {
    return { isValid: false, invalidReason: error.invalidReason ?? 'invalid_payment', payer: error.payer };
  }
  throw error;
}
