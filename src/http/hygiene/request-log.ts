/**
 * One structured JSON log line per request: method, route, path, status, duration, request id and,
 * on a paid route, the payment outcome and the settlement's transaction hash.
 */
import type { Context } from 'hono';
import type { Logger } from 'pino';
import { infoLineWriter } from '../../logger.ts';

/** What a paid route reports for the request log (`c.set('payment', …)` by the payment gate). */
export interface PaymentLogEntry {
  /** The gate's outcome, e.g. `challenge`, `delivered`, `in_flight`. */
  outcome: string;
  /** The settlement transaction, when one was sent. */
  tx?: string;
}

export interface RequestLogVariables {
  requestId: string;
  payment?: PaymentLogEntry;
}

/**
 * The request log: `(c, ms, routePath)` logs the answered request `c` (after `onError`, so a 500 is
 * logged as 500), `ms` after it came, answered by the route pattern `routePath`.
 */
export function requestLogger(logger: Logger): (c: Context, ms: number, routePath: string) => void {
  const write = infoLineWriter(logger, 'request');
  return (c, ms, routePath) => {
    const status = c.res.status;
    const payment = c.get('payment') as PaymentLogEntry | undefined;
    write({
      method: c.req.method,
      // The matched route pattern, e.g. `/v1/cert`; absent when no route matched (404).
      route: status === 404 ? undefined : routePath,
      path: c.req.path,
      status,
      ms: Math.round(ms * 10) / 10,
      request_id: c.get('requestId'),
      payment: payment?.outcome,
      tx: payment?.tx,
    });
  };
}
