/**
 * Which requests are free work, limited per client by `RATE_LIMIT_*`: the requests that make the
 * service work for nobody's money — a free operation (`/v1/validate`), a paid route called without
 * a payment (its domain check and admission, then the 402 challenge), and over MCP a `tools/call` without
 * `_meta["x402/payment"]` (the free tools and the unpaid challenge). Nothing else is limited: the
 * discovery documents, the page and its assets are built once and served from memory with an ETag,
 * and unknown paths, `/health`, `/readyz` and `/metrics` cost as little; a paid request carrying a
 * payment is for verification to decide.
 */
import type { Context } from 'hono';
import type { Logger } from 'pino';
import { freeOperations, paidOperations, WATCHES_ROUTE } from '../../catalog.ts';
import type { Config } from '../../config.ts';
import { DOCUMENT_PATHS } from '../../vocabulary/document-paths.ts';
import { PAYMENT_META_KEY } from '../../vocabulary/x402-mcp-meta.ts';
import { type ClientKey, peerClient } from '../../ops/client-address.ts';
import type { Metrics } from '../../ops/metrics.ts';
import type { RateBuckets } from '../../ops/rate-buckets.ts';
import { createRateLimiter, type RateLimiter } from './rate-limit.ts';

const FREE_ROUTES = new Set<string | null>(freeOperations.map((operation) => operation.route));
const PAID_ROUTES = new Set<string>(paidOperations.map((operation) => operation.route));

export function isFreeWork(c: Context): boolean | Promise<boolean> {
  const { method, path } = c.req;
  // Managing a watch is free work; buying one is, until it carries a payment.
  if (path.startsWith(`${WATCHES_ROUTE}/`)) return true;
  if (method === 'POST' && path === WATCHES_ROUTE) return c.req.header('payment-signature') === undefined;
  // Listing a wallet's watches verifies a sign-in: free work too.
  if (method === 'GET' && path === WATCHES_ROUTE) return true;
  if (method === 'POST' && path === DOCUMENT_PATHS.mcp) return c.req.raw.clone().text().then(isFreeToolCall);
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (FREE_ROUTES.has(path)) return true;
  return PAID_ROUTES.has(path) && c.req.header('payment-signature') === undefined;
}

/** True when the JSON-RPC body holds a `tools/call` that carries no payment; false for anything else. */
export function isFreeToolCall(body: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return false; // the transport answers the parse error
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages.some((message) => {
    const { method, params } = (message ?? {}) as {
      method?: unknown;
      params?: { _meta?: Record<string, unknown> };
    };
    return method === 'tools/call' && (params?._meta?.[PAYMENT_META_KEY] ?? null) === null;
  });
}

export interface FreeWorkDeps {
  metrics: Metrics;
  logger: Logger;
  /** Where the buckets are kept; default: this process's memory. */
  buckets?: RateBuckets;
  /** Who a request is from; default: the Node socket's peer, behind `TRUSTED_PROXIES`. */
  client?: ClientKey;
}

/** The free-work limit of `config`. */
export function freeWorkLimit(
  config: Config,
  { metrics, logger, buckets, client }: FreeWorkDeps,
): RateLimiter {
  return createRateLimiter({
    ...config.ops.rateLimit,
    client: client ?? peerClient(config.ops.trustedProxies),
    metrics,
    applies: isFreeWork,
    buckets,
    onStoreFailure: (error) =>
      logger.warn({ err: error }, 'rate-limit store failed; free requests pass unlimited meanwhile'),
  });
}
