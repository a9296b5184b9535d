/**
 * DNS-rebinding protection for `/mcp` (MCP 2025-11-25 transports, "Security Warning"): the `Host`
 * and, when a browser sent one, the `Origin` must name this service or loopback; otherwise 403.
 */
import type { MiddlewareHandler } from 'hono';
import { publicHostname } from '../../vocabulary/document-paths.ts';

/** Loopback names always allowed, so local clients and the conformance suite can connect. */
export const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'] as const;

/** Hostnames `/mcp` answers for: the public base URL's host plus loopback (ports are not compared). */
export function allowedMcpHostnames(publicBaseUrl: string): ReadonlySet<string> {
  return new Set([publicHostname(publicBaseUrl).toLowerCase(), ...LOOPBACK_HOSTNAMES]);
}

/** Hostname of a `Host` header value or an origin URL, lower case; null when it does not parse. */
function hostnameOf(value: string, isOrigin: boolean): string | null {
  try {
    return new URL(isOrigin ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

function forbidden(message: string): Response {
  // MCP 2025-11-25: "the body MAY comprise a JSON-RPC error response that has no id".
  const body = { jsonrpc: '2.0', error: { code: -32000, message: `Forbidden: ${message}` }, id: null };
  return new Response(JSON.stringify(body), { status: 403, headers: { 'content-type': 'application/json' } });
}

/**
 * Refuses a request whose `Host` is not in `allowed`, or whose `Origin` is present and not in
 * `allowed` (`Origin: null` included). Requests without `Origin` (non-browser clients) pass.
 */
export function mcpOriginGuard(allowed: ReadonlySet<string>): MiddlewareHandler {
  return async function mcpOriginGuard(c, next) {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    const hostname = hostnameOf(host, false);
    if (hostname === null || !allowed.has(hostname))
      return forbidden(`host ${JSON.stringify(host)} is not allowed`);
    const origin = c.req.header('origin');
    if (origin !== undefined) {
      const originHost = hostnameOf(origin, true);
      if (originHost === null || !allowed.has(originHost)) {
        return forbidden(`origin ${JSON.stringify(origin)} is not allowed`);
      }
    }
    await next();
  };
}
