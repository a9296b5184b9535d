/**
 * The payment gate of the paid HTTP routes: in-flight lock → official `@x402/hono` middleware
 * (402 challenge, verify, run, settle only below 400) → problem JSON for the SDK's own answers.
 * `http/app.ts` mounts it after domain validation and the pre-payment refusals.
 */

import { decodePaymentResponseHeader } from '@x402/core/http';
import { x402HTTPResourceServer, type x402ResourceServer } from '@x402/core/server';
import { paymentMiddlewareFromHTTPServer } from '@x402/hono';
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { Logger } from 'pino';
import type { PaidOperation } from '../catalog.ts';
import type { Config } from '../config.ts';
import { sendProblem } from '../http/problems.ts';
import { facilitatorReadiness } from './facilitator-readiness.ts';
import { createInFlightLock, type InFlightLock, inFlightGuard } from './in-flight-lock.ts';
import { FACILITATOR_FAILED, paymentProblem, withProblemBody } from './payment-problem.ts';
import { paymentRequirementsFor } from './resource-server.ts';

export interface PaymentGateDeps {
  /** From `createResourceServer`; initialized here, once, for every route. */
  resourceServer: x402ResourceServer;
  config: Config;
  logger: Logger;
  /** Share one lock with the MCP transport so a signature runs once across both; default: a new lock. */
  lock?: InFlightLock;
}

/**
 * Returns the factory `app.ts` calls once per paid operation. Fetching the facilitator's supported
 * kinds starts at once in the background; a request waits for it, and a failure is retried by the
 * next request (answered 502 meanwhile) instead of exiting the process as the SDK's start-up sync does.
 */
export function createPaymentGate(deps: PaymentGateDeps): (operation: PaidOperation) => MiddlewareHandler {
  const { resourceServer, config, logger, lock = createInFlightLock() } = deps;
  const guard = inFlightGuard(lock);
  const facilitatorReady = facilitatorReadiness(resourceServer, logger);
  void facilitatorReady();

  return (operation) => {
    const httpServer = new x402HTTPResourceServer(resourceServer, {
      [`${operation.method} ${operation.route}`]: paymentRequirementsFor(operation, config),
    });
    // syncFacilitatorOnStart=false: four per-route `initialize()` calls would race on the shared
    // resource server's maps, and a failed start-up sync calls process.exit (x402 backgroundInit).
    const x402 = paymentMiddlewareFromHTTPServer(httpServer, undefined, undefined, false);

    return async function paymentGate(c, next) {
      if (!(await facilitatorReady())) return sendProblem(c, FACILITATOR_FAILED);
      await respond(c, guard, () => respond(c, x402, next));
      logPayment(logger, operation, c);
      const problem = paymentProblem(c.res, operation.priceUsd);
      if (problem) {
        const res = withProblemBody(c.res, problem);
        c.res = undefined; // drop the old response so its headers are not merged in twice
        c.res = res;
      }
    };
  };
}

/** Runs `middleware`; a Response it returns (rather than sets) becomes the context's response. */
async function respond(c: Context, middleware: MiddlewareHandler, next: Next): Promise<void> {
  const res = await middleware(c, next);
  if (res instanceof Response) c.res = res;
}

function logPayment(logger: Logger, operation: PaidOperation, c: Context): void {
  const receiptHeader = c.res.headers.get('payment-response');
  const paid = c.req.header('payment-signature') !== undefined;
  if (!receiptHeader) {
    if (paid) logger.info({ operation: operation.id, status: c.res.status }, 'payment not settled');
    return;
  }
  try {
    const { success, transaction, payer, network, errorReason } = decodePaymentResponseHeader(receiptHeader);
    const entry = { operation: operation.id, status: c.res.status, transaction, payer, network };
    if (success) logger.info(entry, 'payment settled');
    else logger.warn({ ...entry, reason: errorReason }, 'settlement failed; result withheld');
  } catch {
    logger.warn({ operation: operation.id }, 'unreadable PAYMENT-RESPONSE header');
  }
}
