/** Name, description, schemas and hints of a watch tool, from its catalog operation. */
import type { CallToolResult, StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type WatchOperation, watchOperations } from '../../catalog.ts';
import { siteHealthResultSchema } from '../../checks/site-health/result.ts';
import { paidOutputSchema, withCachedJsonSchema } from '../tool-schemas.ts';

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

/**
 * `schema` as a tool's published input, with the arguments handed to the handler as they came: the
 * handler's reader refuses them with the problem codes of HTTP (`watches/request.ts`), where the
 * SDK's own validation would answer a generic error.
 */
export function readByHandler(schema: StandardSchemaWithJSON<WatchArgs>): StandardSchemaWithJSON<WatchArgs> {
  const standard = schema['~standard'];
  return { '~standard': { ...standard, validate: (value) => ({ value: value as WatchArgs }) } };
}

/**
 * A site-health result in a watch tool's output: named, not embedded (each tool would carry its
 * 37 KB schema again). Clients accept no `$ref` out of the tool's own schema, so it points in words.
 */
const SITE_HEALTH_RESULT = z
  .looseObject({})
  .describe(
    'A site-health result: the structuredContent of the site_health tool, as its outputSchema describes.',
  );

/** `result` with each site-health result field replaced by its reference. */
function referringToSiteHealth(result: z.ZodObject): z.ZodObject {
  const shape = Object.fromEntries(
    Object.entries(result.shape).map(([name, field]) => {
      if (field === siteHealthResultSchema) return [name, SITE_HEALTH_RESULT];
      if (field instanceof z.ZodNullable && field.unwrap() === siteHealthResultSchema)
        return [name, SITE_HEALTH_RESULT.nullable()];
      return [name, field];
    }),
  );
  return z.object(shape);
}

/** Name, description and schemas of one watch tool: the same for every request, so built once. */
export function toolConfig(
  id: WatchOperation['id'],
  inputShape: z.ZodRawShape,
  result: z.ZodObject,
  readArgs: (schema: StandardSchemaWithJSON<WatchArgs>) => StandardSchemaWithJSON<WatchArgs> = (schema) =>
    schema,
): WatchToolConfig {
  const { tool, title, description, method } = operation(id);
  return {
    name: tool,
    config: {
      title,
      description,
      inputSchema: readArgs(withCachedJsonSchema(z.object(inputShape) as z.ZodType<WatchArgs>)),
      outputSchema: withCachedJsonSchema(paidOutputSchema(referringToSiteHealth(result))),
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
