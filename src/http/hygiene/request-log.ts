/** One structured JSON log line per request: method, path, status, duration and request id. */
import type { MiddlewareHandler } from 'hono';
import type { RequestIdVariables } from 'hono/request-id';
import type { Logger } from 'pino';

export interface RequestLogOptions {
  logger: Logger;
  /** Monotonic clock in milliseconds; `performance.now` unless a test injects one. */
  now?: () => number;
}

/** Logs each request once it has been answered (after `onError`, so a 500 is logged as 500). */
export function requestLog({
  logger,
  now = () => performance.now(),
}: RequestLogOptions): MiddlewareHandler<{ Variables: RequestIdVariables }> {
  return async function requestLog(c, next) {
    const started = now();
    await next();
    logger.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((now() - started) * 10) / 10,
        request_id: c.get('requestId'),
      },
      'request',
    );
  };
}
