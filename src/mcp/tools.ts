/**
 * The MCP tools, one per catalog operation: each free operation answered from its own function
 * here, each paid operation through the shared x402 paid call. Both protocol eras get the same list.
 */
import type {
  CallToolResult,
  ServerContext,
  StandardSchemaWithJSON,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  domainInputShape,
  type FreeOperation,
  freeOperations,
  type PaidOperation,
  paidOperations,
} from '../catalog.ts';
import type { Config } from '../config.ts';
import { validateDomain } from '../domain/validate.ts';
import type { PaidToolCall } from './paid-tool.ts';
import type { WatchTool } from './watches/tools.ts';
import { buildPricing, pricingSchema } from './pricing.ts';
import { successResult } from './tool-result.ts';
import { noInputShape, paidOutputSchema, toolAnnotations, withCachedJsonSchema } from './tool-schemas.ts';

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

type ToolArgs = { domain?: string };

export interface CatalogTool {
  name: string;
  config: {
    title: string;
    description: string;
    inputSchema: StandardSchemaWithJSON<ToolArgs>;
    outputSchema: StandardSchemaWithJSON;
    annotations: ToolAnnotations;
  };
  handler: (args: ToolArgs, ctx: ServerContext) => CallToolResult | Promise<CallToolResult>;
}

interface FreeTool {
  input: z.ZodObject;
  /** For an operation whose catalog entry has no output schema (`pricing`: it depends on the deployment). */
  output?: z.ZodObject;
  answer(args: ToolArgs, deps: McpServerDeps): object;
}

const domainInput = z.object(domainInputShape);

/** What each free operation takes and answers; a new free catalog id fails to compile until listed. */
const FREE_TOOLS: { [Id in FreeOperation['id']]: FreeTool } = {
  v1_validate: { input: domainInput, answer: ({ domain = '' }) => validateDomain(domain) },
  pricing: {
    input: noInputShape,
    output: pricingSchema,
    answer: (_args, { config }) => buildPricing(config),
  },
};

/** Every tool name, for refusing unknown ones as protocol errors. */
export const TOOL_NAMES: ReadonlySet<string> = new Set(
  [...freeOperations, ...paidOperations].map((operation) => operation.tool),
);

function objectSchema(schema: z.ZodType | null | undefined, tool: string): z.ZodObject {
  if (!(schema instanceof z.ZodObject)) throw new Error(`tool ${tool} needs an object output schema`);
  return schema;
}

/** Name, description and schemas of one tool: the same for every request, so built once. */
function toolConfig(operation: FreeOperation | PaidOperation, input: z.ZodObject, output: z.ZodObject) {
  return {
    title: operation.title,
    description: operation.description,
    inputSchema: withCachedJsonSchema(input as z.ZodType<ToolArgs>),
    outputSchema: withCachedJsonSchema(output),
    annotations: toolAnnotations(operation.title),
  };
}

const freeConfigs = freeOperations.map((operation) => {
  const tool = FREE_TOOLS[operation.id];
  const output = objectSchema(operation.output ?? tool.output, operation.tool);
  return { operation, tool, config: toolConfig(operation, tool.input, output) };
});

// The paid output schemas are widened to also take the x402 challenge (tool-schemas.ts).
const paidConfigs = paidOperations.map((operation) => ({
  operation,
  config: toolConfig(operation, domainInput, paidOutputSchema(operation.output)),
}));

/** The tools in catalog order: free operations first, then paid ones. */
export function catalogTools(deps: McpServerDeps): CatalogTool[] {
  const free = freeConfigs.map(({ operation, tool, config }): CatalogTool => ({
    name: operation.tool,
    config,
    handler: (args) => successResult(tool.answer(args, deps)),
  }));
  const paid = paidConfigs.map(({ operation, config }): CatalogTool => ({
    name: operation.tool,
    config,
    handler: ({ domain = '' }, ctx) => deps.callPaidTool(operation, domain, ctx.mcpReq._meta, deps.signal),
  }));
  return [...free, ...paid];
}
