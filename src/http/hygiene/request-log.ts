/**
 * One structured JSON log line per request: method, route, path, status, duration, request id and,
 * on a paid route, the payment outcome and the settlement's transaction hash.
 */
import type { MiddlewareHandler } from 'hono';
import type { RequestIdVariables } from 'hono/request-id';
import type { Logger } from 'pino';

/** What a paid route reports for the request log (`c.set('payment', …)` by the payment gate). */
export interface PaymentLogEntry {
  /** The gate's outcome, e.g. `challenge`, `delivered`, `in_flight`. */
  outcome: string;
  /** The settlement transaction, when one was sent. */
  tx?: string;
}

export type RequestLogVariables = RequestIdVariables & { payment?: PaymentLogEntry };

export interface RequestLogOptions {
  logger: Logger;
  /** Monotonic clock in milliseconds; `performance.now` unless a test injects one. */
  now?: () => number;
}

/** Logs each request once it has been answered (after `onError`, so a 500 is logged as 500). */
export function requestLog({
  logger,
  now = () => performance.now(),
}: RequestLogOptions): MiddlewareHandler<{ Variables: RequestLogVariables }> {
  return async function requestLog(c, next) {
    const started = now();
    await next();
    if (!logger.isLevelEnabled('info')) return;
    const payment = c.get('payment');
    logger.info(
      {
        method: c.req.method,
        // The matched route pattern, e.g. `/v1/cert`; absent when no route matched (404).
        route: c.res.status === 404 ? undefined : c.req.routePath,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((now() - started) * 10) / 10,
        request_id: c.get('requestId'),
        payment: payment?.outcome,
        tx: payment?.tx,
      },
      'request',
    );
  };
}
