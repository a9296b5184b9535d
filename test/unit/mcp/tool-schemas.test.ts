/** Paid tools' widened output schemas: results, challenges and refusals all pass; clashes are caught. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { paidOperations } from '../../../src/catalog.ts';
import { paidOutputSchema } from '../../../src/mcp/tool-schemas.ts';
import { outputExampleFor } from '../../../src/payments/server/output-examples.ts';
import { CHALLENGE } from './challenge.ts';

describe('paidOutputSchema', () => {
  it.each(paidOperations.map((operation) => [operation.tool, operation] as const))(
    '%s accepts its result, the x402 challenge and a refusal, and rejects unknown fields',
    (_tool, operation) => {
      const schema = paidOutputSchema(operation.output);
      expect(schema.safeParse(outputExampleFor(operation.id)).success).toBe(true);
      expect(schema.safeParse(CHALLENGE).success).toBe(true);
      const refusal = {
        code: 'upstream_failed',
        message: 'x',
        upstreams: [{ name: 'rdap', error: 'timeout' }],
      };
      expect(schema.safeParse(refusal).success).toBe(true);
      // The JSON Schema the client validates against is closed at the top level.
      expect(z.toJSONSchema(schema, { io: 'output' })).toMatchObject({ additionalProperties: false });
    },
  );

  it('refuses a result schema with a field named like a payment or refusal field', () => {
    expect(() => paidOutputSchema(z.object({ domain: z.string(), code: z.string() }))).toThrow(
      /"code" clashes/,
    );
    expect(() => paidOutputSchema(z.string())).toThrow(/zod object/);
  });
});
