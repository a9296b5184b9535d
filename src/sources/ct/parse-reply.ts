/** Turns a CT aggregator's JSON body into typed data, or a `malformed` failure naming the bad field. */
import type { z } from 'zod';
import { parseJsonBody } from '../bounded-fetch.ts';
import { fail, type SourceResult, succeed } from '../failure.ts';

/** Parses `body` as JSON and checks it against `schema`; never throws. */
export function parseJsonReply<T>(source: string, body: Uint8Array, schema: z.ZodType<T>): SourceResult<T> {
  const json = parseJsonBody(source, body);
  if (!json.ok) return json;
  const parsed = schema.safeParse(json.value);
  if (parsed.success) return succeed(parsed.data);
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'the top level';
  return fail({
    code: 'malformed',
    source,
    detail: `${source} sent unexpected data at ${where}: ${issue?.message}`,
  });
}
