/**
 * `tools/call` requests the protocol itself cannot take are JSON-RPC -32602 with one line (MCP
 * 2025-11-25 tools: an unknown tool and malformed params are protocol errors). The SDK answers
 * malformed params with -32603 and a multi-line zod dump, and an unknown tool as a tool result.
 * Arguments that are an object but fail the tool's own schema stay `isError` results, as the spec
 * asks, so a model can correct them.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

type Handler = (request: unknown, extra: unknown) => Promise<unknown>;

/** Wraps the `tools/call` handler `server` registered; call after the tools are registered. */
export function refuseInvalidToolCalls(server: McpServer, tools: ReadonlySet<string>): void {
  // The SDK keeps its handlers in a map with no public getter; the wrapper keeps its behaviour.
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
  const handle = handlers.get('tools/call');
  if (!handle) throw new Error('register the tools before refuseInvalidToolCalls');
  handlers.set('tools/call', async (request, extra) => {
    const parsed = CallToolRequestSchema.safeParse(request);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.join('.') || 'params';
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid params: ${where}: ${issue?.message ?? 'malformed'}`,
      );
    }
    const { name } = parsed.data.params;
    if (!tools.has(name)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 100)}. See tools/list.`);
    }
    return handle(request, extra);
  });
}
