/**
 * What answers a POST to `/mcp`: MCP Streamable HTTP in JSON response mode, both protocol eras on
 * one endpoint. A request carrying the 2026-07-28 `_meta` envelope goes to the SDK's per-request
 * handler (`server/discover`, `Mcp-Method`/`Mcp-Name` checks, `resultType`, cache hints); any other
 * request is 2025-era and gets a fresh server on a stateless transport, as before 2026-07-28.
 * `src/app.ts` loads this module, and with it the MCP SDK, on the first such request
 * (`src/http/mcp/routes.ts`).
 */
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { CheckRunners } from '../catalog.ts';
import type { Config } from '../config.ts';
import type { Payments } from '../payments/payments.ts';
import { watchTools } from './watches/tools.ts';
import type { Watches } from '../watches/ports.ts';
import { createPaidToolCall } from './paid-tool.ts';
import { buildMcpServer } from './server.ts';

export interface McpEndpointDeps {
  /** The same payments as the HTTP gate: one lock, one resource server, one settlement. */
  payments: Payments;
  config: Config;
  runners: CheckRunners;
  logger: Logger;
  /** This runtime's watches: their tools are listed only with them. */
  watches?: Watches;
  /**
   * Largest JSON-RPC body the transport reads, in bytes: the app-wide limit (`src/app.ts` passes
   * it), whose 413 answers first; this bounds the transport should the routes be mounted without it.
   */
  maxBodyBytes: number;
}

/** What answers each MCP POST request. */
export function mcpEndpoint(deps: McpEndpointDeps): (request: Request) => Promise<Response> {
  const { config, runners, payments, maxBodyBytes } = deps;
  const callPaidTool = createPaidToolCall({ runners, payments });
  const tools = deps.watches
    ? watchTools({ config, watches: deps.watches, payments, logger: deps.logger })
    : [];

  /**
   * A server for one request whose tool calls are added to `calls`. Both hold the request's signal:
   * a client that leaves is seen by its paid call, which settles or not accordingly.
   */
  const serverFor = (signal: AbortSignal, calls: Set<Promise<unknown>>) => {
    const kept = <T>(call: Promise<T>): Promise<T> => {
      calls.add(call);
      return call;
    };
    return buildMcpServer({
      config,
      callPaidTool: (...args) => kept(callPaidTool(...args)),
      signal,
      watchTools: tools.map((tool) => ({ ...tool, call: (...args) => kept(tool.call(...args)) })),
    });
  };
  /** The tool calls of each 2026-era request being served (the SDK's factory gets only the request). */
  const callsOf = new WeakMap<Request, Set<Promise<unknown>>>();
  // `legacy: 'reject'`: 2025-era traffic never reaches it (routed below, to keep its JSON answers).
  // The default response mode answers JSON: no tool here sends a notification before its result.
  const modern = createMcpHandler(
    // The handler always passes the Request it serves; without one no client can go away.
    ({ requestInfo }) =>
      serverFor(
        requestInfo?.signal ?? new AbortController().signal,
        (requestInfo && callsOf.get(requestInfo)) ?? new Set(),
      ),
    { legacy: 'reject', maxRequestBodySize: maxBodyBytes },
  );

  const legacy = async (request: Request, calls: Set<Promise<unknown>>): Promise<Response> => {
    const server = serverFor(request.signal, calls);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: maxBodyBytes,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      // JSON mode: the response is complete once handleRequest resolves.
      await server.close();
    }
  };

  return async (request) => {
    const calls = new Set<Promise<unknown>>();
    let response: Response;
    if (await isLegacyRequest(request, undefined, { maxRequestBodySize: maxBodyBytes })) {
      response = await legacy(request, calls);
    } else {
      callsOf.set(request, calls);
      response = await modern.fetch(request);
    }
    // A 2026-era exchange ends when its client leaves (the SDK answers 499 on the request's abort)
    // while the paid call runs on to its settlement and the record of the undelivered result. The
    // answer waits for it: a Worker's invocation, and what it has under way, ends with its response
    // (and its `waitUntil` work), and a stopping Node instance drains the requests it still serves.
    await Promise.allSettled(calls);
    return response;
  };
}
