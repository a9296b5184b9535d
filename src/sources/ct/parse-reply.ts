/** Turns a CT aggregator's JSON body into typed data, or a `malformed` failure naming the bad field. */
import type { z } from 'zod';
import { notJsonFailure, parseJsonBody } from '../bounded-fetch.ts';
import { fail, type SourceFailure, type SourceResult, succeed } from '../failure.ts';
import { forEachJsonArrayElement, isJsonArrayText } from '../json-array-slices.ts';

/** Parses `body` as JSON and checks it against `schema`; never throws. */
export function parseJsonReply<T>(source: string, body: Uint8Array, schema: z.ZodType<T>): SourceResult<T> {
  const json = parseJsonBody(source, body);
  if (!json.ok) return json;
  const parsed = schema.safeParse(json.value);
  if (parsed.success) return succeed(parsed.data);
  return fail(unexpectedData(source, parsed.error.issues[0]));
}

/**
 * `parseJsonReply` with `z.array(element)`, the same answer and the same failure (not JSON at all
 * first, else the first element's first issue), read in slices that let the event loop run
 * (json-array-slices.ts): each element is checked as its slice is parsed.
 */
export async function parseJsonArrayReply<T>(
  source: string,
  body: Uint8Array,
  element: z.ZodType<T>,
): Promise<SourceResult<T[]>> {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(body);
  if (!isJsonArrayText(text)) return parseJsonReply(source, body, element.array());
  const values: T[] = [];
  const first: { invalid?: SourceFailure } = {};
  const isJson = await forEachJsonArrayElement(text, (value, index) => {
    if (first.invalid) return;
    const parsed = element.safeParse(value);
    if (parsed.success) values.push(parsed.data);
    else {
      const issue = parsed.error.issues[0];
      first.invalid = unexpectedData(source, issue && { ...issue, path: [index, ...issue.path] });
    }
  });
  if (!isJson) return fail(notJsonFailure(source));
  return first.invalid ? fail(first.invalid) : succeed(values);
}

function unexpectedData(source: string, issue: z.core.$ZodIssue | undefined): SourceFailure {
  const where = issue?.path.length ? issue.path.join('.') : 'the top level';
  return {
    code: 'malformed',
    source,
    detail: `${source} sent unexpected data at ${where}: ${issue?.message}`,
  };
}
