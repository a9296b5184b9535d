/**
 * HTTP hygiene applied to the whole app, in order: one log line per request; request id, security
 * and CORS headers; CORS preflight; 405 for a known path with the wrong method; request body limits.
 */
import type { Env, Hono } from 'hono';
import type { Logger } from 'pino';
import { CARD_CORS_PATHS } from '../discovery/routes.ts';
import { type BodyLimitOptions, requestBodyLimit } from './body-limit.ts';
import { agentCors } from './cors.ts';
import { methodNotAllowedProblem } from './method-not-allowed.ts';
import { requestLog } from './request-log.ts';
import { responseHeaders } from './response-headers.ts';

export { DEFAULT_BODY_LIMIT_BYTES } from './body-limit.ts';
export type { PaymentLogEntry, RequestLogVariables } from './request-log.ts';

export interface HttpHygieneOptions {
  logger: Logger;
  /** Body limits; `maxBytesByPath` lets the MCP endpoint set its own (default 64 KiB everywhere). */
  bodyLimit?: BodyLimitOptions;
  /** Monotonic clock in milliseconds for request durations (tests inject one). */
  now?: () => number;
}

/** Registers the hygiene middleware on `app`; call before any route is added. */
export function applyHttpHygiene<E extends Env>(app: Hono<E>, options: HttpHygieneOptions): void {
  app.use(requestLog({ logger: options.logger, now: options.now }));
  app.use(responseHeaders({ corsSkipPaths: CARD_CORS_PATHS }));
  app.use(agentCors({ skipPaths: CARD_CORS_PATHS }));
  app.use(methodNotAllowedProblem(app));
  app.use(requestBodyLimit(options.bodyLimit));
}
