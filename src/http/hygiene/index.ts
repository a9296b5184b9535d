/**
 * HTTP hygiene, as one middleware around every request: the request id and standard headers; the
 * CORS preflight; request body limits; the free-work limit; then the route; afterwards the standard
 * headers on an answer made elsewhere, the request count and one log line. One layer rather than one
 * per concern: each layer of middleware is an asynchronous step of its own, and on a small request
 * seven such steps cost more than the route. A known path with the wrong method is for the app's
 * not-found handler to answer (`notFoundOrNotAllowed`).
 */
import type { Context, Env, Hono, MiddlewareHandler, Next } from 'hono';
import type { Logger } from 'pino';
import type { RateLimiter } from '../ops/rate-limit.ts';
import { CARD_CORS_PATHS } from '../discovery/routes.ts';
import { type BodyLimitOptions, requestBodyLimit } from './body-limit.ts';
import { corsPreflight } from './cors.ts';
import { requestLogger } from './request-log.ts';
import { stampForeign, stampRequest } from './standard-headers.ts';

export { DEFAULT_BODY_LIMIT_BYTES } from './body-limit.ts';
export { notFoundOrNotAllowed } from './method-not-allowed.ts';
export type { PaymentLogEntry, RequestLogVariables } from './request-log.ts';
export { JSON_CONTENT, reply, replyJson, type StandardHeaderVariables } from './standard-headers.ts';

export interface HttpHygieneOptions {
  logger: Logger;
  /** Body limits; `maxBytesByPath` lets the MCP endpoint set its own (default 64 KiB everywhere). */
  bodyLimit?: BodyLimitOptions;
  /** The limit on free work; none when absent. */
  limiter?: Pick<RateLimiter, 'limit'>;
  /** Counts each answered request (`/metrics`). */
  count?: (c: Context) => void;
  /** Monotonic clock in milliseconds for request durations (tests inject one). */
  now?: () => number;
}

/** Registers the hygiene middleware on `app`; call before any route is added. */
export function applyHttpHygiene<E extends Env>(app: Hono<E>, options: HttpHygieneOptions): void {
  const { logger, limiter, count, now = () => performance.now() } = options;
  const ownCors = new Set<string>(CARD_CORS_PATHS);
  const preflight = corsPreflight();
  const limitBody = requestBodyLimit(options.bodyLimit);
  const logRequest = requestLogger(logger);

  async function limited(c: Context, next: Next): Promise<void> {
    const pending = limiter?.limit(c);
    const refusal = pending instanceof Promise ? await pending : pending;
    if (refusal) c.res = refusal;
    else await next();
  }

  app.use(async function hygiene(c, next) {
    const started = now();
    const { method } = c.req;
    const corsAnswered = ownCors.has(c.req.path);
    stampRequest(c, !corsAnswered);
    if (method === 'GET' || method === 'HEAD') await limited(c, next);
    else if (method === 'OPTIONS' && !corsAnswered) await around(preflight, c, next);
    // A GET or HEAD has no body (the Node adapter never reads one); the limit would build a Request.
    else await around(limitBody, c, () => limited(c, next));
    stampForeign(c);
    count?.(c);
    logRequest(c, now() - started);
  });
}

/** Runs `middleware` inside this one, keeping the answer it returns instead of calling `next`. */
async function around(middleware: MiddlewareHandler, c: Context, next: Next): Promise<void> {
  const answer = await middleware(c, next);
  if (answer) c.res = answer;
}
