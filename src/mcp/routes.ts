/**
 * `/mcp`: MCP Streamable HTTP, stateless and in JSON response mode (discovery-and-mcp.md §5). POST
 * gets a fresh server and transport per request; other methods get 405 with `Allow: POST`.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { type Context, Hono } from 'hono';
import type { Logger } from 'pino';
import type { CheckRunners } from '../catalog.ts';
import type { Config } from '../config.ts';
import { DOCUMENT_PATHS } from '../http/discovery/document-paths.ts';
import { DEFAULT_BODY_LIMIT_BYTES, replyJson } from '../http/hygiene/index.ts';
import type { Payments } from '../payments/payments.ts';
import { watchTools } from '../watches/mcp-tools.ts';
import type { Watches } from '../watches/routes.ts';
import { allowedMcpHostnames, mcpOriginGuard } from './origin-guard.ts';
import { createPaidToolCall } from './paid-tool.ts';
import { buildMcpServer } from './server.ts';

export interface McpRouteDeps {
  /** The same payments as the HTTP gate: one lock, one resource server, one settlement. */
  payments: Payments;
  config: Config;
  runners: CheckRunners;
  logger: Logger;
  /** This runtime's watches: their tools are listed only with them. */
  watches?: Watches;
}

/**
 * Largest JSON-RPC body the transport reads, in bytes; the app-wide limit (hygiene) answers 413
 * first, this bounds the transport should the routes be mounted without it.
 */
export const MCP_MAX_BODY_BYTES = DEFAULT_BODY_LIMIT_BYTES;

function methodNotAllowed(c: Context): Response {
  const body = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null };
  return replyJson(c, body, 405, { Allow: 'POST' });
}

/** The `/mcp` routes, to mount at `/`. */
export function mcpRoutes(deps: McpRouteDeps): Hono {
  const { config, runners, payments } = deps;
  const callPaidTool = createPaidToolCall({ runners, payments });
  const tools = deps.watches
    ? watchTools({ config, watches: deps.watches, payments, logger: deps.logger })
    : [];
  const path = DOCUMENT_PATHS.mcp;

  const routes = new Hono();
  routes.use(path, mcpOriginGuard(allowedMcpHostnames(config.publicBaseUrl)));
  routes.post(path, async function mcpRequest(c) {
    const server = buildMcpServer({ config, callPaidTool, signal: c.req.raw.signal, watchTools: tools });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MCP_MAX_BODY_BYTES,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      // JSON mode: the response is complete once handleRequest resolves.
      await server.close();
    }
  });
  // Stateless: no standalone SSE stream to offer on GET, no session to DELETE (MCP 2025-11-25 transports).
  routes.on(['GET', 'DELETE', 'PUT', 'PATCH'], path, methodNotAllowed);
  return routes;
}
