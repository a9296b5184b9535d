/**
 * The JSON-facing shapes of the MCP tools: the `domain` input, the annotations every check shares,
 * and output schemas that also accept the x402 PaymentRequired and refusal objects (x402 MCP transport).
 */
import type { StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { portableJsonSchema } from './portable-schema.ts';

/** The input of a tool without arguments: an object with no properties (MCP 2025-11-25 tools). */
export const noInputShape = z.object({}).strict();

/** Annotations of every tool here: each only reads third-party data, and calling it twice is harmless. */
export function toolAnnotations(title: string): ToolAnnotations {
  return { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
}

/** Fields of an x402 v2 PaymentRequired object (x402 v2 specification), kept open where the SDK adds keys. */
const paymentRequiredFields = {
  x402Version: z.number().int().optional(),
  error: z.string().optional().describe('Why payment is required or was rejected.'),
  resource: z.looseObject({ url: z.string() }).optional(),
  accepts: z.array(z.looseObject({ scheme: z.string(), network: z.string() })).optional(),
  extensions: z.record(z.string(), z.unknown()).optional(),
};

/** Fields of a refused call (invalid input, upstream failure): the HTTP problem `code` and its detail. */
const refusalFields = {
  code: z.string().optional().describe('Stable problem code, the same as the HTTP API, e.g. invalid_domain.'),
  message: z.string().optional(),
  upstreams: z.array(z.object({ name: z.string(), error: z.string() })).optional(),
  reason: z.object({ code: z.string(), message: z.string() }).optional(),
};

/**
 * The output schema of a paid tool: the result's fields made optional, plus the PaymentRequired and
 * refusal fields. MCP clients validate `structuredContent` against it even on `isError` results,
 * so the strict result schema alone would reject the payment challenge. Throws when a result field
 * shares a name with one of those fields (a catalog change that would blur the two shapes).
 */
export function paidOutputSchema(result: z.ZodType): z.ZodObject {
  if (!(result instanceof z.ZodObject)) throw new Error('a paid tool result schema must be a zod object');
  const extra = { ...paymentRequiredFields, ...refusalFields };
  const clash = Object.keys(extra).find((key) => key in result.shape);
  if (clash) throw new Error(`result field "${clash}" clashes with a payment or refusal field`);
  return result.partial().extend(extra);
}

type JsonSchemaConverter = StandardSchemaWithJSON['~standard']['jsonSchema'];

/**
 * `schema` with its JSON Schema computed once per process, in its portable spelling
 * (`portable-schema.ts`). Every request builds a new server whose
 * `tools/list` and tool results would otherwise convert each schema again (the paid results' run to
 * 30 KB of JSON Schema): the conversions tripled the cost of an MCP request.
 */
export function withCachedJsonSchema<T>(schema: z.ZodType<T>): StandardSchemaWithJSON<T> {
  const standard = schema['~standard'] as StandardSchemaWithJSON['~standard'];
  const cache = new Map<string, Record<string, unknown>>();
  const cached =
    (io: 'input' | 'output'): JsonSchemaConverter['input'] =>
    (options) => {
      const key = `${io} ${JSON.stringify(options)}`;
      let converted = cache.get(key);
      if (!converted) {
        converted = portableJsonSchema(standard.jsonSchema[io](options));
        cache.set(key, converted);
      }
      return converted;
    };
  const jsonSchema = { input: cached('input'), output: cached('output') };
  return { '~standard': { ...standard, jsonSchema } } as StandardSchemaWithJSON<T>;
}
