/**
 * The headers every answer carries: a request id, the security headers and, outside the paths that
 * answer CORS themselves, the CORS read headers. They are set on the context before the handler
 * runs, so Hono builds the handler's response with them at once and the Node adapter writes it in
 * one go; setting them on `c.res` instead makes Hono build a placeholder response, rebuild the real
 * one and copy headers, and the adapter then streams it (about a third of a small request's CPU).
 */
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { RequestIdVariables } from 'hono/request-id';
import { CORS_EXPOSE_HEADERS } from './cors.ts';

export const REQUEST_ID_HEADER = 'X-Request-Id';
/** A client's own request id is echoed when it is at most this long and made of `[\w=-]`. */
const REQUEST_ID_MAX_LENGTH = 255;
const UNSAFE_REQUEST_ID = /[^\w\-=]/;

/**
 * Hono's `secureHeaders()` defaults, with `Cross-Origin-Resource-Policy: cross-origin`: a public API
 * read by agents on other origins, where CORS decides who may read, not CORP.
 */
export const SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ['Cross-Origin-Resource-Policy', 'cross-origin'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Origin-Agent-Cluster', '?1'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=15552000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-DNS-Prefetch-Control', 'off'],
  ['X-Download-Options', 'noopen'],
  ['X-Frame-Options', 'SAMEORIGIN'],
  ['X-Permitted-Cross-Domain-Policies', 'none'],
  ['X-XSS-Protection', '0'],
];

const CORS_READ_HEADERS: readonly (readonly [string, string])[] = [
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS.join(',')],
];

/** The client's request id when it is safe to echo, else a fresh UUID. */
export function requestIdFor(sent: string | undefined): string {
  if (!sent || sent.length > REQUEST_ID_MAX_LENGTH || UNSAFE_REQUEST_ID.test(sent)) return randomUUID();
  return sent;
}

export interface ResponseHeadersOptions {
  /** Exact paths that answer CORS themselves (the MCP server card's fixed policy). */
  corsSkipPaths?: readonly string[];
}

/**
 * Sets the request id (`c.get('requestId')`), security and CORS read headers on every answer. A
 * handler that returns its own `Response` (not built by the context) gets them afterwards, with the
 * security and CORS headers overriding its own as before.
 */
export function responseHeaders({ corsSkipPaths = [] }: ResponseHeadersOptions = {}): MiddlewareHandler<{
  Variables: RequestIdVariables;
}> {
  const skipped = new Set(corsSkipPaths);
  const withCors = [...SECURITY_HEADERS, ...CORS_READ_HEADERS];
  return async function responseHeaders(c, next) {
    const id = requestIdFor(c.req.header(REQUEST_ID_HEADER));
    c.set('requestId', id);
    const headers = skipped.has(c.req.path) ? SECURITY_HEADERS : withCors;
    c.header(REQUEST_ID_HEADER, id);
    for (const [name, value] of headers) c.header(name, value);
    await next();
    if (c.res.headers.get(REQUEST_ID_HEADER) === id) return;
    // A response of the handler's own, whose headers may be immutable: answer a copy.
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set(REQUEST_ID_HEADER, id);
    for (const [name, value] of headers) c.res.headers.set(name, value);
  };
}
