/**
 * The payment side of the service, built once per process and shared by both transports: one
 * resource server, one facilitator sync, one in-flight lock (a signature runs once whether it
 * arrives over HTTP or MCP) and one settlement that reconciles with the chain.
 */
import type { x402ResourceServer } from '@x402/core/server';
import type { Logger } from 'pino';
import type { PaidOperation } from '../catalog.ts';
import type { Config } from '../config.ts';
import { createLifecycle, type Lifecycle } from '../lifecycle.ts';
import { type Metrics, noMetrics } from '../ops/metrics.ts';
import type { ChainView } from './chain/chain-view.ts';
import { createFacilitator, type Facilitator } from './facilitator/facilitator.ts';
import { type FacilitatorReady, facilitatorReadiness } from './server/facilitator-readiness.ts';
import { createIdentifiedAnswers, type IdentifiedAnswers } from './server/identified-answers.ts';
import { createInFlightLock, type InFlightLock } from './server/in-flight-lock.ts';
import type { LocalChain } from './chain/local-chain.ts';
import { createPaidCall, type PaidCall } from './server/paid-call.ts';
import { withPaymentIdentifiers } from './server/payment-identifier.ts';
import { type PaymentTerms, type PaymentTransport, paymentTermsFor } from './server/payment-terms.ts';
import { createResourceServer } from './server/resource-server.ts';
import { createSettlement, type Settle, type SettlementDeps } from './facilitator/settlement.ts';
import type { SettlerNoncesFor } from './facilitator/settler-nonces.ts';
import { createUndelivered, type Undelivered } from './server/undelivered.ts';
import { chainClock } from './chain/chain-clock.ts';
import { createReadiness, type Readiness, type StoreCondition } from './server/readiness.ts';

export interface Payments {
  resourceServer: x402ResourceServer;
  /** Resolves true once the facilitator's supported kinds are loaded (retried on the next call after a failure). */
  facilitatorReady: FacilitatorReady;
  paidCall: PaidCall;
  /** The terms of an operation on a transport, built once. */
  terms: Record<PaymentTransport, (operation: PaidOperation) => Promise<PaymentTerms>>;
  lock: InFlightLock;
  lifecycle: Lifecycle;
  /** Where payment events are counted. */
  metrics: Metrics;
  /** Whether payments can be taken now, and if not why (`/readyz`, the metrics). */
  readiness: Readiness;
  /** The chain, when this process can read it (self-settlement, the local chain, `X402_RPC_URL`). */
  chain?: Pick<ChainView, 'authorizationUsed' | 'latestBlockTime' | 'verifyMessage'>;
}

/** How long `readiness` waits for the facilitator's supported kinds. */
export const READINESS_TIMEOUT_MS = 3_000;

export interface PaymentsOptions {
  config: Config;
  logger: Logger;
  /** The embedded chain, in `local-chain` mode. */
  local?: LocalChain;
  /** A facilitator to use instead of the one the configuration names (tests). */
  facilitator?: Facilitator;
  lifecycle?: Lifecycle;
  /** Where payment events are counted; default: nowhere. */
  metrics?: Metrics;
  /** Settlement timings (tests shorten them). */
  settlement?: Pick<SettlementDeps, 'deadlineMs' | 'pollMs'>;
  /** What instances must share (Workers: Durable Objects); default: this process's memory. */
  shared?: SharedPaymentState;
}

/** The payment state every instance of the service must see alike. */
export interface SharedPaymentState {
  /** One signature, one run. */
  lock: InFlightLock;
  /** Lost results, claimable once. */
  undelivered: Undelivered;
  /** The answers of payments that carried a payment identifier, for the redelivery window. */
  identified: IdentifiedAnswers;
  /** Settles elsewhere instead of in this instance: one sequencer per settler wallet owns its nonces. */
  settle?: Settle;
  /** Settles in this instance, taking the settler wallet's account nonces from a store all instances share. */
  nonces?: SettlerNoncesFor;
  /** What the store can do for a paid call now (shown by `/readyz`). */
  condition?: () => StoreCondition;
}

export function createPayments(options: PaymentsOptions): Payments {
  const { config, logger, local, lifecycle = createLifecycle(), metrics = noMetrics } = options;
  // This instance settles what it verifies unless a settler elsewhere does (Workers).
  const facilitator =
    options.facilitator ??
    createFacilitator(config, local, {
      nonces: options.shared?.nonces,
      prepareAhead: !options.shared?.settle,
    });
  const resourceServer = createResourceServer(facilitator.client, config.x402.network);
  const facilitatorReady = facilitatorReadiness(resourceServer, logger);
  void facilitatorReady();
  const {
    lock,
    undelivered,
    identified,
    settle: sharedSettle,
  } = options.shared ?? {
    lock: createInFlightLock(),
    undelivered: createUndelivered(),
    identified: createIdentifiedAnswers(),
  };
  const clock =
    facilitator.clock ?? (facilitator.chain ? chainClock(facilitator.chain.chainTime) : undefined);
  // Measured before the first payment is judged by it.
  void clock?.refresh(0);
  const settle =
    sharedSettle ??
    createSettlement({
      resourceServer,
      network: config.x402.network,
      ...facilitator,
      ...(clock ? { clock } : {}),
      ...options.settlement,
    });
  return {
    resourceServer,
    facilitatorReady,
    paidCall: withPaymentIdentifiers(
      createPaidCall({
        resourceServer,
        settle,
        lock,
        undelivered,
        lifecycle,
        logger,
        metrics,
        ...(facilitator.chain ? { chain: facilitator.chain } : {}),
        ...(clock ? { clock } : {}),
        ...(facilitator.settlementFollows ? { settlementFollows: facilitator.settlementFollows } : {}),
      }),
      { answers: identified, logger, metrics },
    ),
    terms: {
      http: paymentTermsFor(resourceServer, config, 'http'),
      mcp: paymentTermsFor(resourceServer, config, 'mcp'),
    },
    lock,
    lifecycle,
    metrics,
    readiness: createReadiness({
      facilitatorReady,
      lifecycle,
      timeoutMs: READINESS_TIMEOUT_MS,
      ...(options.shared?.condition ? { sharedStore: options.shared.condition } : {}),
      ...(clock ? { clock } : {}),
    }),
    ...(facilitator.chain ? { chain: facilitator.chain } : {}),
  };
}
