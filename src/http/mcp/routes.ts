/**
 * `/mcp`: POST is answered by the MCP endpoint (`src/mcp/endpoint.ts`: MCP Streamable HTTP, both
 * protocol eras), loaded with the MCP SDK on the first POST: a process that never serves MCP never
 * holds the SDK (about 5 MiB of heap). Other methods get 405 with `Allow: POST`. The endpoint comes
 * as a loader (`src/app.ts` passes it), so nothing in `src/http/` imports `src/mcp/`.
 */
import { type Context, Hono } from 'hono';
import { DOCUMENT_PATHS } from '../../vocabulary/document-paths.ts';
import { replyJson } from '../hygiene/index.ts';
import { allowedMcpHostnames, mcpOriginGuard } from './origin-guard.ts';

/** Answers one MCP POST request. */
export type McpEndpoint = (request: Request) => Promise<Response>;

function methodNotAllowed(c: Context): Response {
  const body = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null };
  return replyJson(c, body, 405, { Allow: 'POST' });
}

/** The `/mcp` routes of a service published at `publicBaseUrl`, to mount at `/`. */
export function mcpRoutes(publicBaseUrl: string, loadEndpoint: () => Promise<McpEndpoint>): Hono {
  const path = DOCUMENT_PATHS.mcp;
  let endpoint: Promise<McpEndpoint> | undefined;
  const routes = new Hono();
  routes.use(path, mcpOriginGuard(allowedMcpHostnames(publicBaseUrl)));
  routes.post(path, async function mcpRequest(c) {
    endpoint ??= loadEndpoint();
    return (await endpoint)(c.req.raw);
  });
  // Stateless: no standalone SSE stream to offer on GET, no session to DELETE (MCP 2025-11-25 transports).
  routes.on(['GET', 'DELETE', 'PUT', 'PATCH'], path, methodNotAllowed);
  return routes;
}
