/**
 * The MCP server generated from the catalog: one tool per free and paid operation. Built fresh for
 * every request, for either protocol era (MCP 2025-11-25 stateless, 2026-07-28 per-request), by the
 * official v2 server package.
 */
import { type CacheHint, McpServer } from '@modelcontextprotocol/server';
import { serverIdentity } from '../vocabulary/server-identity.ts';
import { refuseInvalidToolCalls } from './invalid-params.ts';
import { catalogTools, type McpServerDeps, TOOL_NAMES } from './tools.ts';

/**
 * `ttlMs`/`cacheScope` of `tools/list` and `server/discover` on 2026-07-28 (SEP-2549): the tool list
 * changes only with a deployment and is the same for every caller, so shared caches may keep it.
 */
export const TOOLS_LIST_CACHE_HINT: CacheHint = { ttlMs: 3_600_000, cacheScope: 'public' };

/** Shown to the model at `initialize` and in `server/discover`: how the free and paid tools fit together. */
export const MCP_INSTRUCTIONS =
  'Domain checks for agents. Free: validate_target (call it first to avoid a refused check) and pricing. ' +
  'Paid per call with x402 v2 (USDC on Base): check_cert, check_dns, check_domain_expiry, site_health. ' +
  'An unpaid call returns isError with the x402 PaymentRequired object in structuredContent; sign one of its ' +
  '`accepts` and repeat the call with the PaymentPayload in _meta["x402/payment"]. The receipt is in ' +
  '_meta["x402/payment-response"]. Invalid input and upstream failures are never charged.';

/**
 * A new server with every catalog tool (and the watch tools where this runtime keeps watches),
 * registered in catalog order (deterministic, as MCP 2026-07-28 `tools/list` asks); `serverInfo` is
 * the server card's identity, so the two cannot drift.
 */
export function buildMcpServer(deps: McpServerDeps): McpServer {
  const server = new McpServer(serverIdentity(deps.config.publicBaseUrl), {
    instructions: MCP_INSTRUCTIONS,
    cacheHints: { 'tools/list': TOOLS_LIST_CACHE_HINT, 'server/discover': TOOLS_LIST_CACHE_HINT },
  });
  for (const tool of catalogTools(deps)) server.registerTool(tool.name, tool.config, tool.handler);
  const watchTools = deps.watchTools ?? [];
  for (const tool of watchTools) {
    server.registerTool(tool.name, tool.config, (args, ctx) =>
      tool.call(args, ctx.mcpReq._meta, deps.signal),
    );
  }
  refuseInvalidToolCalls(server, new Set([...TOOL_NAMES, ...watchTools.map((tool) => tool.name)]));
  return server;
}
