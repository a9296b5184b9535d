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
import {
  type ExactAuthorization,
  exactAuthorizationOf,
  MAX_TIMEOUT_SECONDS,
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
}

export interface PaidCallRequest {
  /** The operation's terms on this transport; the caller has made sure the facilitator is ready. */
  terms: PaymentTerms;
  payment: PaymentRead;
  run: () => Promise<RunOutcome<unknown>>;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** For the log line: the route or tool. */
  name: string;
  /** What the call is about (the normalized domain): part of a payment identifier's fingerprint. */
  subject: string;
}

export type PaidCall = (request: PaidCallRequest) => Promise<PaidCallOutcome>;

export function createPaidCall(deps: PaidCallDeps): PaidCall {
  const { resourceServer, settle, lock, undelivered, lifecycle, logger, metrics, chain } = deps;

  async function challenge(
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

  function remember(key: string, signature: string, receipt: SettleResponse): void {
    undelivered
      .remember(key, signature, receipt)
      .catch((error: unknown) => logger.error({ err: error }, 'could not remember an undelivered result'));
  }

  return async function paidCall({ terms, payment, run, signal, name }) {
    if (payment.kind === 'absent') {
      metrics.payment('challenged');
      return challenge(terms, UNPAID_REASON);
    }
    if (payment.kind === 'invalid') {
      metrics.payment('refused');
      return challenge(terms, payment.why);
    }
    const { payload } = payment;
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
    if (misdirected) {
      metrics.payment('refused');
      return challenge(terms, misdirected);
    }
    const requirements = resourceServer.findMatchingRequirements(terms.requirements, payload);
    if (!requirements) {
      metrics.payment('refused');
      return challenge(terms, 'No matching payment requirements', payload);
    }
    // The service asks for exact EIP-3009 only: a payload of another shape is the payer's mistake
    // (402 naming the field), so what still throws inside verify is the facilitator, RPC or chain.
    const malformed = exactPayloadProblem(payload);
    const authorization = malformed ? null : exactAuthorizationOf(payload);
    if (!authorization) {
      metrics.payment('refused');
      return challenge(terms, malformed ?? 'invalid_exact_evm_payload');
    }
    if (authorizationWindowTooLong(authorization, MAX_TIMEOUT_SECONDS, Date.now())) {
      metrics.payment('refused');
      return challenge(terms, 'authorization_window_too_long', payload);
    }

    const { key, signature } = authorization;
    const resource = terms.resource.url;
    // A lock that cannot be asked (a shared store out of reach) is never run without: 503.
    const release = await lock.acquire(key).catch(() => undefined);
    if (release === undefined) return unavailable('payment lock unavailable');
    if (!release) return { kind: 'in_flight' };
    metrics.paidInFlight(1);
    try {
      const lost = await undelivered.claim(key, signature, resource).catch(() => undefined);
      // Unknown whether a lost result waits: running on would settle into an already used authorization.
      if (lost === undefined) return unavailable('lost results unavailable');
      if (lost === 'interrupted') {
        const used = await paidBeforeItsSettlerWentAway(authorization, requirements);
        if (used === undefined) return unavailable('chain unreadable for an interrupted settlement');
        if (used) return redeliver(key, signature, used);
        // Not used: its settler died before the chain took it (a transaction of it still waiting
        // somewhere is reconciled by this call's own settlement, which counts it as paid).
      } else if (lost) return redeliver(key, signature, lost);

      const verified = await faultScope(() =>
        resourceServer.verifyPayment(payload, requirements, terms.extensions).catch(facilitatorRefusal),
      ).catch(() => null);
      if (!verified || (!verified.value.isValid && verified.faulted))
        return unavailable('payment verification unavailable');
      if (!verified.value.isValid) {
        metrics.payment('refused');
        return challenge(terms, verified.value.invalidReason ?? 'invalid_payment', payload);
      }
      const payer = verified.value.payer;
      metrics.payment('verified');

      const outcome = await run();
      if (outcome.type !== 'result') {
        logger.info({ name, payer, outcome: outcome.type }, 'payment not settled');
        return { kind: 'not_run', outcome };
      }
      if (signal.aborted) {
        logger.info({ name, payer }, 'client gone before settlement; payment not settled');
        return { kind: 'client_gone' };
      }
      if (!lifecycle.acceptingSettlements()) {
        logger.info({ name, payer }, 'stopping; payment not settled');
        return { kind: 'stopping' };
      }

      const settled = lifecycle.beginSettlement();
      // Recorded before anything is signed: should this process die from here on, whoever gets the
      // next copy of this payment finds the record and, if the chain took the payment, delivers.
      const recorded = await undelivered.settling(key, signature, resource).then(
        () => true,
        () => false,
      );
      if (!recorded) {
        settled();
        return unavailable('could not record the settlement');
      }
      const settlement = await settle(payload, requirements, terms.extensions).finally(settled);
      if (settlement.status === 'refused' || settlement.status === 'unavailable') forget(key);
      switch (settlement.status) {
        case 'settled':
        case 'unconfirmed': {
          const { transaction, network, errorReason } = settlement.receipt;
          const entry = { name, payer, transaction, network };
          metrics.payment('settled', requirements.amount);
          await handedOver(key, signature, settlement.receipt, entry);
          if (settlement.status === 'settled') logger.info(entry, 'payment settled');
          else
            logger.warn({ ...entry, reason: errorReason }, 'payment sent but unconfirmed; result delivered');
          return { kind: 'delivered', result: outcome.result, receipt: settlement.receipt };
        }
        case 'refused':
          metrics.payment('settlement_failed');
          logger.info({ name, payer, reason: settlement.reason }, 'settlement refused; result withheld');
          return challenge(terms, settlement.reason, payload, {
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
    } finally {
      metrics.paidInFlight(-1);
      await release();
    }

    function unavailable(why: string): PaidCallOutcome {
      logger.warn({ name }, why);
      return { kind: 'payment_unavailable' };
    }

    /**
     * Paid: the settling record goes (or, the client already gone, becomes a lost result); should
     * the client be gone before the answer is written (the transport aborts the signal then, now or
     * later), it may claim the result with the same authorization.
     */
    async function handedOver(
      key: string,
      signature: string,
      receipt: SettleResponse,
      entry: object,
    ): Promise<void> {
      const lost = () => {
        remember(key, signature, receipt);
        logger.warn(entry, 'paid result not delivered; it can be claimed once with the same payment');
      };
      if (signal.aborted) return lost();
      await undelivered
        .settled(key)
        .catch((error: unknown) => logger.warn({ err: error }, 'could not clear a settling record'));
      signal.addEventListener('abort', lost, { once: true });
    }

    /**
     * Runs the check again for a payment already settled whose result never reached its client; its
     * record goes once the result is handed over, and a redelivery that does not reach the client
     * either leaves the result claimable.
     */
    async function redeliver(
      key: string,
      signature: string,
      receipt: SettleResponse,
    ): Promise<PaidCallOutcome> {
      const outcome = await run();
      if (outcome.type !== 'result') {
        // Kept as a lost result (a store that deleted it on the claim, as the Worker's does, has it again).
        remember(key, signature, receipt);
        return { kind: 'not_run', outcome };
      }
      const entry = { name, payer: receipt.payer, transaction: receipt.transaction };
      await handedOver(key, signature, receipt, entry);
      logger.info(entry, 'paid result redelivered');
      return { kind: 'delivered', result: outcome.result, receipt };
    }
  };

  function forget(key: string): void {
    undelivered
      .settled(key)
      .catch((error: unknown) => logger.warn({ err: error }, 'could not clear a settling record'));
  }

  /**
   * The receipt of an authorization the chain shows used, whose settler went away before anyone got
   * its result; null when unused; undefined when the chain cannot be read.
   */
  async function paidBeforeItsSettlerWentAway(
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
