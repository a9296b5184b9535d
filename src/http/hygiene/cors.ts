/**
 * CORS for browser-based agents: any origin may call the API, send the x402 and MCP request headers
 * and read the x402 response headers. The read headers of ordinary answers are set with the other
 * standard headers (`response-headers.ts`); this answers preflight requests.
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

export interface AgentCorsOptions {
  /** Exact paths that answer CORS themselves (the MCP server card's fixed policy). */
  skipPaths?: readonly string[];
}

/** App-wide CORS preflight (`OPTIONS`); paths in `skipPaths` are passed through untouched. */
export function agentCors({ skipPaths = [] }: AgentCorsOptions = {}): MiddlewareHandler {
  const skipped = new Set(skipPaths);
  const policy = cors({
    origin: '*',
    allowMethods: CORS_ALLOW_METHODS,
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: CORS_MAX_AGE_S,
  });
  return async function agentCors(c, next) {
    if (c.req.method !== 'OPTIONS' || skipped.has(c.req.path)) return next();
    return policy(c, next);
  };
}
