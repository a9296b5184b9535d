/**
 * HTTP hygiene, as one middleware around every request: the request id and standard headers; the
 * CORS preflight; request body limits; the free-work limit; then the route; afterwards the standard
 * headers on an answer made elsewhere, the request count and one log line. One layer rather than one
 * per concern: each layer of middleware is an asynchronous step of its own, and on a small request
 * seven such steps cost more than the route. And where a route has no middleware of its own, not
 * even that layer: the hygiene and the route run as one handler (`single-step.ts`), synchronously
 * when the route answers synchronously. A known path with the wrong method is for the app's
 * not-found handler to answer (`notFoundOrNotAllowed`).
 */
import type { Context, Env, Hono, MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { RateLimiter } from '../ops/rate-limit.ts';
import { CARD_CORS_PATHS } from '../discovery/routes.ts';
import { type BodyLimitOptions, requestBodyLimit } from './body-limit.ts';
import { corsPreflight } from './cors.ts';
import { requestLogger } from './request-log.ts';
import { type Hygiene, runInOneStep } from './single-step.ts';
import { stampForeign, stampRequest } from './standard-headers.ts';

type Step = () => void | Promise<void>;
/** The route pattern of middleware added with `app.use(handler)`, as Hono reports it. */
const HYGIENE_ROUTE = '/*';

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
  /** Counts each answered request (`/metrics`) under the route pattern that answered it. */
  count?: (c: Context, routePath: string) => void;
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

  /** Takes free work's token, then runs `next`, or answers the refusal. */
  function limited(c: Context, next: Step): void | Promise<void> {
    const refusal = limiter?.limit(c);
    if (refusal === undefined) return next();
    if (refusal instanceof Promise)
      return refusal.then((answer) => (answer ? void (c.res = answer) : next()));
    c.res = refusal;
  }

  const hygiene: Hygiene = (c, route) => {
    const started = now();
    const { method } = c.req;
    const corsAnswered = ownCors.has(c.req.path);
    stampRequest(c, !corsAnswered);
    let routed = false;
    const next = () => {
      routed = true;
      return route();
    };
    let pending: void | Promise<void>;
    if (method === 'GET' || method === 'HEAD') pending = limited(c, next);
    else if (method === 'OPTIONS' && !corsAnswered) pending = around(preflight, c, next);
    // A GET or HEAD has no body (the Node adapter never reads one); the limit would build a Request.
    else pending = around(limitBody, c, () => limited(c, next));
    const done = () => {
      stampForeign(c);
      // Answered before any route (a 429, a 413, a preflight): the hygiene's own pattern, `/*`.
      const routePath = routed ? c.req.routePath : HYGIENE_ROUTE;
      count?.(c, routePath);
      logRequest(c, now() - started, routePath);
    };
    if (pending instanceof Promise) return pending.then(done);
    done();
  };
  const middleware: MiddlewareHandler = async (c, next) => hygiene(c, next);
  app.use(middleware);
  runInOneStep(app, middleware, hygiene);
}

/** Runs `middleware` inside this one, keeping the answer it returns instead of calling `next`. */
async function around(middleware: MiddlewareHandler, c: Context, next: Step): Promise<void> {
  // What `next` resolves to (Hono's composition resolves to the context) is not an answer.
  const answer = await middleware(c, async () => {
    await next();
  });
  if (answer) c.res = answer;
}
