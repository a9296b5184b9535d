/**
 * The tools' JSON Schemas in their portable spelling: no type arrays and no empty schemas for the
 * MCP Inspector's `--strict` report to flag, and the same verdict as the original on every value.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { paidOperations } from '../../../src/catalog.ts';
import { portableJsonSchema } from '../../../src/mcp/portable-schema.ts';
import { paidOutputSchema, withCachedJsonSchema } from '../../../src/mcp/tool-schemas.ts';
import { outputExampleFor } from '../../../src/payments/server/output-examples.ts';
import { CHALLENGE } from './challenge.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every place in `schema` the Inspector's portability report flags for these two rules. */
function unportable(schema: Json, path = '$'): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, i) => unportable(item, `${path}[${i}]`));
  if (schema === null || typeof schema !== 'object') return [];
  const found: string[] = [];
  if (Array.isArray(schema.type)) found.push(`${path}.type`);
  const open = schema.additionalProperties;
  if (open && typeof open === 'object' && !Array.isArray(open) && Object.keys(open).length === 0)
    found.push(`${path}.additionalProperties`);
  for (const [key, value] of Object.entries(schema))
    if (!['enum', 'const', 'default', 'examples', 'required'].includes(key))
      found.push(...unportable(value, `${path}.${key}`));
  return found;
}

/** `value` with the JSON at `path` (property names) replaced by `replacement`. */
function withField(value: Json, path: string[], replacement: Json): Json {
  const copy = structuredClone(value) as { [key: string]: Json };
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as { [key: string]: Json };
  node[path.at(-1) as string] = replacement;
  return copy;
}

describe('portableJsonSchema', () => {
  it('spells a type array as anyOf branches, annotations outside, constraints inside', () => {
    expect(
      portableJsonSchema({ description: 'd', type: ['string', 'null'], maxLength: 3, enum: ['a', null] }),
    ).toEqual({
      description: 'd',
      anyOf: [{ type: 'string', maxLength: 3, enum: ['a', null] }, { type: 'null' }],
    });
  });

  it('spells an open object as additionalProperties: true, and leaves data keywords alone', () => {
    expect(
      portableJsonSchema({
        type: 'object',
        additionalProperties: {},
        properties: { tags: { type: 'object', additionalProperties: {} } },
        default: { type: ['a', 'b'], additionalProperties: {} },
      }),
    ).toEqual({
      type: 'object',
      additionalProperties: true,
      properties: { tags: { type: 'object', additionalProperties: true } },
      default: { type: ['a', 'b'], additionalProperties: {} },
    });
  });

  const ajv = new Ajv2020({ strict: false, allErrors: false });

  it.each(paidOperations.map((operation) => [operation.tool, operation] as const))(
    '%s: the listed output schema is portable and judges its result, the challenge and broken values as the original does',
    (_tool, operation) => {
      const schema = paidOutputSchema(operation.output);
      const original = schema['~standard'].jsonSchema.output({ target: 'draft-2020-12' }) as Json;
      const listed = withCachedJsonSchema(schema)['~standard'].jsonSchema.output({
        target: 'draft-2020-12',
      }) as Json;
      expect(unportable(original).length).toBeGreaterThan(0);
      expect(unportable(listed)).toEqual([]);
      const example = outputExampleFor(operation.id) as Json;
      const values: Json[] = [
        example,
        CHALLENGE,
        withField(example, ['domain'], null),
        withField(example, ['domain'], 42),
        withField(example, ['checked_at'], { nested: true }),
        withField(CHALLENGE, ['extensions'], 'not an object'),
        withField(CHALLENGE, ['x402Version'], 2.5),
      ];
      const judgeOriginal = ajv.compile(original as object);
      const judgeListed = ajv.compile(listed as object);
      const verdicts = values.map((value) => [judgeOriginal(value), judgeListed(value)]);
      for (const [before, after] of verdicts) expect(after).toBe(before);
      expect(verdicts.map(([before]) => before)).toEqual([true, true, false, false, false, false, false]);
    },
  );
});
