/**
 * Request body size limits: one default, overridable for exact paths (the MCP endpoint sizes its
 * own). An oversized body is a 413 problem before any handler reads it.
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { PROBLEM_CODES } from '../../vocabulary/problems.ts';
import { sendProblem } from '../send-problem.ts';

/** Default request body limit: 64 KiB. No GET route takes a body; this bounds stray POSTs. */
export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

export interface BodyLimitOptions {
  defaultMaxBytes?: number;
  /** Exact path → limit in bytes, e.g. `{ '/mcp': 256 * 1024 }`. */
  maxBytesByPath?: Readonly<Record<string, number>>;
}

function limitFor(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) =>
      sendProblem(c, {
        status: 413,
        code: PROBLEM_CODES.payloadTooLarge,
        title: 'Payload too large',
        detail: `The request body is larger than ${maxBytes} bytes.`,
      }),
  });
}

/** Refuses request bodies over the limit for the request's path with a 413 problem. */
export function requestBodyLimit({
  defaultMaxBytes = DEFAULT_BODY_LIMIT_BYTES,
  maxBytesByPath = {},
}: BodyLimitOptions = {}): MiddlewareHandler {
  const fallback = limitFor(defaultMaxBytes);
  const byPath = new Map(
    Object.entries(maxBytesByPath).map(([path, maxBytes]) => [path, limitFor(maxBytes)]),
  );
  return async function requestBodyLimit(c, next) {
    // A GET or HEAD has no body (the Node adapter never reads one); checking would build a Request.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    return (byPath.get(c.req.path) ?? fallback)(c, next);
  };
}
