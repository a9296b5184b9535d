/**
 * A tool's JSON Schema in the most portable of its equivalent spellings, for clients that map tool
 * schemas onto a narrower dialect (the OpenAPI subset of function declarations; the MCP Inspector's
 * `--strict` report): a type array such as `["string", "null"]` becomes `anyOf` branches of one
 * type each, and an open object's `additionalProperties: {}` becomes `true`. What validates is
 * unchanged.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Keywords whose values are data, not schemas: left as they are. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example', 'required']);
/** Keywords that describe the whole value and stay outside the `anyOf` branches. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

export function portableJsonSchema<T>(schema: T): T {
  return portable(schema as Json) as T;
}

function portable(node: Json): Json {
  if (Array.isArray(node)) return node.map(portable);
  if (node === null || typeof node !== 'object') return node;
  const rewritten: Record<string, Json> = {};
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) rewritten[key] = value;
    else if (key === 'additionalProperties' && isEmptySchema(value)) rewritten[key] = true;
    else rewritten[key] = portable(value);
  }
  const types = rewritten.type;
  return Array.isArray(types) && types.length > 1 ? oneTypePerBranch(rewritten, types) : rewritten;
}

function isEmptySchema(value: Json): boolean {
  return (
    value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0
  );
}

/** `schema` with its type array `types` as `anyOf` branches (annotations kept outside them). */
function oneTypePerBranch(schema: Record<string, Json>, types: Json[]): Json {
  const outer: Record<string, Json> = {};
  const inner: Record<string, Json> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type') continue;
    (ANNOTATIONS.has(key) ? outer : inner)[key] = value;
  }
  const branches = types.map((type) => (type === 'null' ? { type } : { ...inner, type }));
  return { ...outer, anyOf: branches };
}
