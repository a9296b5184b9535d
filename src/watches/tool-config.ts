/** Name, description, schemas and hints of a watch tool, from its catalog operation. */
import type { CallToolResult, StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type WatchOperation, watchOperations } from '../catalog.ts';
import { paidOutputSchema, withCachedJsonSchema } from '../mcp/tool-schemas.ts';

export type WatchArgs = Record<string, unknown>;

export interface WatchToolConfig {
  name: string;
  config: {
    title: string;
    description: string;
    inputSchema: StandardSchemaWithJSON<WatchArgs>;
    outputSchema: StandardSchemaWithJSON;
    annotations: ToolAnnotations;
  };
}

export interface WatchTool extends WatchToolConfig {
  call(
    args: Record<string, unknown>,
    meta: Record<string, unknown> | undefined,
    signal: AbortSignal,
  ): Promise<CallToolResult>;
}

const operation = (id: WatchOperation['id']) => watchOperations.find((o) => o.id === id) as WatchOperation;

/** Name, description and schemas of one watch tool: the same for every request, so built once. */
export function toolConfig(
  id: WatchOperation['id'],
  inputShape: z.ZodRawShape,
  result: z.ZodObject,
): WatchToolConfig {
  const { tool, title, description, method } = operation(id);
  return {
    name: tool,
    config: {
      title,
      description,
      inputSchema: withCachedJsonSchema(z.object(inputShape) as z.ZodType<WatchArgs>),
      outputSchema: withCachedJsonSchema(paidOutputSchema(result)),
      annotations: {
        title,
        readOnlyHint: method === 'GET',
        destructiveHint: method === 'DELETE',
        idempotentHint: method === 'GET' || method === 'DELETE',
        openWorldHint: true,
      },
    },
  };
}
