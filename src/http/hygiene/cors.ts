/**
 * CORS for browser-based agents: any origin may call the API, send the x402 and MCP request headers
 * and read the x402 response headers. The read headers of ordinary answers are set with the other
 * standard headers (`standard-headers.ts`); this answers preflight requests.
 */
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';

/** Request headers a browser agent may send (x402 v2 payment, JSON bodies, MCP). */
export const CORS_ALLOW_HEADERS = [
  'Content-Type',
  'PAYMENT-SIGNATURE',
  'Mcp-Protocol-Version',
  'Mcp-Session-Id',
];
/** Response headers a browser agent must be able to read (x402 v2 challenge and receipt). */
export const CORS_EXPOSE_HEADERS = ['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'X-Request-Id'];
export const CORS_ALLOW_METHODS = ['GET', 'POST', 'OPTIONS'];
/** How long a browser may cache a preflight answer, in seconds. */
export const CORS_MAX_AGE_S = 600;

/** The CORS preflight answer (`OPTIONS`), for the paths that do not answer CORS themselves. */
export function corsPreflight(): MiddlewareHandler {
  return cors({
    origin: '*',
    allowMethods: CORS_ALLOW_METHODS,
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: CORS_MAX_AGE_S,
  });
}
