/**
 * The MCP server generated from the catalog: the free tools (validate_target, pricing) and one paid
 * tool per paid operation. Built fresh for every request (stateless transport, discovery-and-mcp.md §5.1).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { domainInputShape, type FreeOperation, freeOperations, paidOperations } from '../catalog.ts';
import type { Config } from '../config.ts';
import { validateDomain } from '../domain/validate.ts';
import { serverIdentity } from '../http/discovery/server-card.ts';
import { refuseInvalidToolCalls } from './invalid-params.ts';
import type { WatchTool } from '../watches/mcp-tools.ts';
import type { PaidToolCall } from './paid-tool.ts';
import { buildPricing, pricingSchema } from './pricing.ts';
import { successResult } from './tool-result.ts';
import { noInputShape, paidOutputSchema, toolAnnotations } from './tool-schemas.ts';

/** Shown to the model at `initialize`: how the free and paid tools fit together. */
export const MCP_INSTRUCTIONS =
  'Domain checks for agents. Free: validate_target (call it first to avoid a refused check) and pricing. ' +
  'Paid per call with x402 v2 (USDC on Base): check_cert, check_dns, check_domain_expiry, site_health. ' +
  'An unpaid call returns isError with the x402 PaymentRequired object in structuredContent; sign one of its ' +
  '`accepts` and repeat the call with the PaymentPayload in _meta["x402/payment"]. The receipt is in ' +
  '_meta["x402/payment-response"]. Invalid input and upstream failures are never charged.';

export interface McpServerDeps {
  config: Config;
  callPaidTool: PaidToolCall;
  /**
   * Aborts when the HTTP client of this request goes away, before or after its answer was due. Not
   * the SDK's per-request signal: closing the stateless server aborts that one after the answer.
   */
  signal: AbortSignal;
  /** The watch tools, when this runtime keeps watches. */
  watchTools?: readonly WatchTool[];
}

// Built once: the widened output schemas do not change per request.
const paidTools = paidOperations.map((operation) => ({
  operation,
  outputSchema: paidOutputSchema(operation.output),
}));

const TOOL_NAMES = new Set([...freeOperations, ...paidOperations].map((operation) => operation.tool));

function freeOperation(id: FreeOperation['id']): FreeOperation {
  const operation = freeOperations.find((candidate) => candidate.id === id);
  if (!operation) throw new Error(`free operation ${id} missing from the catalog`);
  return operation;
}

/** A new server with all six tools; `serverInfo` is the server card's identity, so the two cannot drift. */
export function buildMcpServer({ config, callPaidTool, signal, watchTools = [] }: McpServerDeps): McpServer {
  const server = new McpServer(serverIdentity(config.publicBaseUrl), { instructions: MCP_INSTRUCTIONS });

  const validate = freeOperation('v1_validate');
  server.registerTool(
    validate.tool,
    {
      title: validate.title,
      description: validate.description,
      inputSchema: domainInputShape,
      outputSchema: validate.output ?? undefined,
      annotations: toolAnnotations(validate.title),
    },
    ({ domain }) => successResult(validateDomain(domain)),
  );

  const pricing = freeOperation('pricing');
  server.registerTool(
    pricing.tool,
    {
      title: pricing.title,
      description: pricing.description,
      inputSchema: noInputShape,
      outputSchema: pricingSchema,
      annotations: toolAnnotations(pricing.title),
    },
    () => successResult(buildPricing(config)),
  );

  for (const { operation, outputSchema } of paidTools) {
    server.registerTool(
      operation.tool,
      {
        title: operation.title,
        description: operation.description,
        inputSchema: domainInputShape,
        outputSchema,
        annotations: toolAnnotations(operation.title),
      },
      ({ domain }, extra) => callPaidTool(operation, domain, extra._meta, signal),
    );
  }
  for (const { operation, inputShape, outputSchema, call } of watchTools) {
    server.registerTool(
      operation.tool,
      {
        title: operation.title,
        description: operation.description,
        inputSchema: inputShape,
        outputSchema,
        annotations: {
          title: operation.title,
          readOnlyHint: operation.method === 'GET',
          destructiveHint: operation.method === 'DELETE',
          idempotentHint: operation.method !== 'POST',
          openWorldHint: true,
        },
      },
      (args, extra) => call(args, extra._meta, signal),
    );
  }
  refuseInvalidToolCalls(server, new Set([...TOOL_NAMES, ...watchTools.map((tool) => tool.operation.tool)]));
  return server;
}
