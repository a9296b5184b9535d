/**
 * `/mcp`: MCP Streamable HTTP, stateless and in JSON response mode (discovery-and-mcp.md §5). POST
 * gets a fresh server and transport per request; other methods get 405 with `Allow: POST`.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { x402ResourceServer } from '@x402/core/server';
import { type Context, Hono } from 'hono';
import type { Logger } from 'pino';
import type { CheckRunners } from '../catalog.ts';
import type { Config } from '../config.ts';
import { DOCUMENT_PATHS } from '../http/discovery/document-paths.ts';
import { DEFAULT_BODY_LIMIT_BYTES } from '../http/hygiene/index.ts';
import { facilitatorReadiness } from '../payments/facilitator-readiness.ts';
import type { InFlightLock } from '../payments/in-flight-lock.ts';
import { allowedMcpHostnames, mcpOriginGuard } from './origin-guard.ts';
import { createPaidToolCall } from './paid-tool.ts';
import { buildMcpServer } from './server.ts';

/** The payment pieces the MCP transport shares with the HTTP gate. */
export interface McpDeps {
  /** The same `x402ResourceServer` the payment gate uses. */
  resourceServer: x402ResourceServer;
  /** The same lock the payment gate uses (`createPaymentGate({ lock })`). */
  lock: InFlightLock;
}

export interface McpRouteDeps extends McpDeps {
  config: Config;
  runners: CheckRunners;
  logger: Logger;
}

/**
 * Largest JSON-RPC body the transport reads, in bytes; the app-wide limit (hygiene) answers 413
 * first, this bounds the transport should the routes be mounted without it.
 */
export const MCP_MAX_BODY_BYTES = DEFAULT_BODY_LIMIT_BYTES;

function methodNotAllowed(c: Context): Response {
  const body = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null };
  return c.json(body, 405, { Allow: 'POST' });
}

/** The `/mcp` routes, to mount at `/`. */
export function mcpRoutes(deps: McpRouteDeps): Hono {
  const { config, logger, resourceServer } = deps;
  const callPaidTool = createPaidToolCall({
    ...deps,
    facilitatorReady: facilitatorReadiness(resourceServer, logger),
  });
  const path = DOCUMENT_PATHS.mcp;

  const routes = new Hono();
  routes.use(path, mcpOriginGuard(allowedMcpHostnames(config.publicBaseUrl)));
  routes.post(path, async function mcpRequest(c) {
    const server = buildMcpServer({ config, callPaidTool });
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
