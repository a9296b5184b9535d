/**
 * The MCP tools, one per catalog operation: each free operation answered from its own function
 * here, each paid operation through the shared x402 paid call. Both protocol eras get the same list.
 */
import type { CallToolResult, ServerContext, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  domainInputShape,
  type FreeOperation,
  freeOperations,
  type PaidOperation,
  paidOperations,
} from '../catalog.ts';
import { validateDomain } from '../domain/validate.ts';
import type { McpServerDeps } from './server.ts';
import { buildPricing, pricingSchema } from './pricing.ts';
import { successResult } from './tool-result.ts';
import { noInputShape, paidOutputSchema, toolAnnotations } from './tool-schemas.ts';

export interface CatalogTool {
  name: string;
  config: {
    title: string;
    description: string;
    inputSchema: z.ZodObject;
    outputSchema?: z.ZodObject;
    annotations: ToolAnnotations;
  };
  handler: (args: { domain?: string }, ctx: ServerContext) => CallToolResult | Promise<CallToolResult>;
}

interface FreeTool {
  input: z.ZodObject;
  /** For an operation whose catalog entry has no output schema (`pricing`: it depends on the deployment). */
  output?: z.ZodObject;
  answer(args: { domain?: string }, deps: McpServerDeps): object;
}

const domainInput = z.object(domainInputShape);

/** What each free operation takes and answers; a new free catalog id fails to compile until listed. */
const FREE_TOOLS: { [Id in FreeOperation['id']]: FreeTool } = {
  v1_validate: {
    input: domainInput,
    answer: ({ domain = '' }) => validateDomain(domain),
  },
  pricing: {
    input: noInputShape,
    output: pricingSchema,
    answer: (_args, { config }) => buildPricing(config),
  },
};

function objectSchema(schema: z.ZodType | null | undefined, tool: string): z.ZodObject {
  if (!(schema instanceof z.ZodObject)) throw new Error(`tool ${tool} needs an object output schema`);
  return schema;
}

// Built once: the widened output schemas do not change per request.
const paidOutputs = new Map<PaidOperation, z.ZodObject>(
  paidOperations.map((operation) => [operation, paidOutputSchema(operation.output)]),
);

/** Every tool name, for refusing unknown ones as protocol errors. */
export const TOOL_NAMES: ReadonlySet<string> = new Set(
  [...freeOperations, ...paidOperations].map((operation) => operation.tool),
);

function describe(operation: FreeOperation | PaidOperation) {
  return {
    title: operation.title,
    description: operation.description,
    annotations: toolAnnotations(operation.title),
  };
}

/** The tools in catalog order: free operations first, then paid ones. */
export function catalogTools(deps: McpServerDeps): CatalogTool[] {
  const free = freeOperations.map((operation): CatalogTool => {
    const tool = FREE_TOOLS[operation.id];
    return {
      name: operation.tool,
      config: {
        ...describe(operation),
        inputSchema: tool.input,
        outputSchema: objectSchema(operation.output ?? tool.output, operation.tool),
      },
      handler: (args) => successResult(tool.answer(args, deps)),
    };
  });
  const paid = paidOperations.map((operation): CatalogTool => ({
    name: operation.tool,
    config: { ...describe(operation), inputSchema: domainInput, outputSchema: paidOutputs.get(operation) },
    handler: ({ domain = '' }, ctx) => deps.callPaidTool(operation, domain, ctx.mcpReq._meta, deps.signal),
  }));
  return [...free, ...paid];
}
