/**
 * `tools/call` requests the protocol itself cannot take are JSON-RPC -32602 with one line (MCP
 * 2025-11-25 and 2026-07-28 tools: an unknown tool and malformed params are protocol errors). The
 * SDK answers malformed params with a multi-line schema dump, and an unknown tool without pointing
 * at `tools/list`. Arguments that are an object but fail the tool's own schema stay `isError`
 * results, as the spec asks, so a model can correct them.
 */
import { type McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

type Handler = (request: unknown, ctx: unknown) => Promise<unknown>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first malformed member of `tools/call` params, as `where: what`, or null when well formed. */
function malformedParams(params: unknown): string | null {
  if (!isObject(params)) return 'params: expected an object';
  if (typeof params.name !== 'string') return 'name: expected a string';
  if (params.arguments !== undefined && !isObject(params.arguments)) return 'arguments: expected an object';
  if (params._meta !== undefined && !isObject(params._meta)) return '_meta: expected an object';
  return null;
}

/** Wraps the `tools/call` handler `server` registered; call after the tools are registered. */
export function refuseInvalidToolCalls(server: McpServer, tools: ReadonlySet<string>): void {
  // The SDK keeps its handlers in a map with no public setter that skips its own parsing.
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
  const handle = handlers.get('tools/call');
  if (!handle) throw new Error('register the tools before refuseInvalidToolCalls');
  handlers.set('tools/call', async (request, ctx) => {
    const params = isObject(request) ? request.params : undefined;
    const malformed = malformedParams(params);
    if (malformed) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params: ${malformed}`);
    const { name } = params as { name: string };
    if (!tools.has(name)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${name.slice(0, 100)}. See tools/list.`,
      );
    }
    return handle(request, ctx);
  });
}
