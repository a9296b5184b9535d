/**
 * The output schema a 402's bazaar extension declares (x402 bazaar `output.schema`): the result's
 * top-level fields and their JSON types. The full result schemas run to 30 KB, too much for a
 * `PAYMENT-REQUIRED` header that clients read with a 16 KB header limit; `/openapi.json` has them
 * whole. Self-contained (no `$ref`) so a catalogue compiles it as it stands.
 */
import { z } from 'zod';

type JsonSchema = {
  type?: string | string[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
};

/** The JSON types one property can take, nested unions flattened: e.g. `["object", "null"]`. */
function typesOf(schema: JsonSchema): string[] {
  if (schema.anyOf) return [...new Set(schema.anyOf.flatMap(typesOf))];
  if (schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

/** The top level of `output`'s JSON Schema: an object with each field's types and the required ones. */
export function outputSummarySchema(output: z.ZodType): Record<string, unknown> {
  const full = z.toJSONSchema(output, { io: 'output' }) as JsonSchema;
  const properties = Object.fromEntries(
    Object.entries(full.properties ?? {}).map(([name, property]) => {
      const types = typesOf(property);
      return [name, types.length === 0 ? {} : { type: types.length === 1 ? types[0] : types }];
    }),
  );
  return { type: 'object', properties, required: full.required ?? [] };
}
