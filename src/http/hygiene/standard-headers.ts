/**
 * The headers every answer carries: a request id, the security headers and, outside the paths that
 * answer CORS themselves, the CORS read headers (plus, on free work, the rate-limit headers). `reply`
 * builds an answer with them.
 *
 * An answer gets one plain header record: names in lower case and sorted, then `Content-Length`, the
 * order in which the Node adapter writes a `Headers` object, so the bytes on the wire are what they
 * were. But nothing validates, sorts and copies a `Headers` object per answer: the adapter hands a
 * plain record to Node as it is, and Node checks each header once (the `Headers` path was a quarter
 * of a small request's CPU, and the 3.7 KB `PAYMENT-REQUIRED` value was checked twice). Answers made
 * elsewhere (the MCP transport's, Hono's own) get the standard headers copied in by `stampForeign`.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { CORS_EXPOSE_HEADERS } from './cors.ts';

export const REQUEST_ID_HEADER = 'x-request-id';
/** A client's own request id is echoed when it is at most this long and made of `[\w=-]`. */
const REQUEST_ID_MAX_LENGTH = 255;
const UNSAFE_REQUEST_ID = /[^\w\-=]/;

/** A header as `[lower-case name, value]`; lists of them are kept sorted by name. */
export type HeaderEntry = readonly [name: string, value: string];

/**
 * Hono's `secureHeaders()` defaults, with `Cross-Origin-Resource-Policy: cross-origin`: a public API
 * read by agents on other origins, where CORS decides who may read, not CORP.
 */
export const SECURITY_HEADERS: readonly HeaderEntry[] = sortedEntries({
  'cross-origin-resource-policy': 'cross-origin',
  'cross-origin-opener-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=15552000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
});

const WITH_CORS: readonly HeaderEntry[] = mergeSorted(
  SECURITY_HEADERS,
  sortedEntries({
    'access-control-allow-origin': '*',
    'access-control-expose-headers': CORS_EXPOSE_HEADERS.join(','),
  }),
);

/** Where a request's own id goes among the constant headers; its value is the request's. */
const REQUEST_ID_SLOT: HeaderEntry = [REQUEST_ID_HEADER, ''];
/** The constant headers with the request id's slot, with CORS and without, made once. */
const WITH_CORS_AND_ID = mergeSorted(WITH_CORS, [REQUEST_ID_SLOT]);
const SECURITY_AND_ID = mergeSorted(SECURITY_HEADERS, [REQUEST_ID_SLOT]);
const NONE: readonly HeaderEntry[] = [];

/**
 * A request's standard headers, kept as the constant list (shared by every request), its id, and
 * what was added (the rate-limit headers): merged only once, into the answer.
 */
interface StandardHeaders {
  constant: readonly HeaderEntry[];
  id: string;
  added: readonly HeaderEntry[];
}

export interface StandardHeaderVariables {
  requestId: string;
  standardHeaders: StandardHeaders;
  /** The answer `reply` made, which has the standard headers already. */
  replied: Response;
}

/** The client's request id when it is safe to echo, else a fresh UUID. */
export function requestIdFor(sent: string | undefined): string {
  if (!sent || sent.length > REQUEST_ID_MAX_LENGTH || UNSAFE_REQUEST_ID.test(sent)) return randomUUID();
  return sent;
}

/** Gives the request its id (`c.get('requestId')`) and its standard headers, with CORS or without. */
export function stampRequest(c: Context, withCors: boolean): void {
  const id = requestIdFor(c.req.header(REQUEST_ID_HEADER));
  c.set('requestId', id);
  c.set('standardHeaders', { constant: withCors ? WITH_CORS_AND_ID : SECURITY_AND_ID, id, added: NONE });
}

/** Adds `entries` (sorted) to the request's standard headers. */
export function addStandardHeaders(c: Context, entries: readonly HeaderEntry[]): void {
  const standard = standardHeadersOf(c);
  c.set('standardHeaders', { ...standard, added: mergeSorted(standard.added, entries) });
}

/**
 * The answer: `body` with `status`, the request's standard headers and `headers` (which win over a
 * standard header of the same name).
 */
export function reply(
  c: Context,
  body: string | Uint8Array<ArrayBuffer> | null,
  status: number,
  headers: Readonly<Record<string, string>> = {},
): Response {
  const record: Record<string, string> = {};
  eachStandardHeader(c, sortedEntries(headers), (name, value) => {
    record[name] = value;
  });
  // Hono answers HEAD with the GET answer's headers and no body, and sent no length for it.
  if (body !== null && c.req.method !== 'HEAD') {
    record['Content-Length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  }
  const response = new Response(body, { status, headers: record });
  c.set('replied', response);
  return response;
}

/** The content type of JSON answers. */
export const JSON_CONTENT: Readonly<Record<string, string>> = { 'content-type': 'application/json' };

/** `reply` with `value` as JSON. */
export function replyJson(
  c: Context,
  value: unknown,
  status = 200,
  headers?: Readonly<Record<string, string>>,
): Response {
  return reply(c, JSON.stringify(value), status, headers ? { ...JSON_CONTENT, ...headers } : JSON_CONTENT);
}

/**
 * Copies the standard headers into an answer not made by `reply` (they win over its own). Its
 * headers may be immutable, so the answer is a copy.
 */
export function stampForeign(c: Context): void {
  if (c.get('replied') === c.res) return;
  c.res = new Response(c.res.body, c.res);
  const { headers } = c.res;
  eachStandardHeader(c, NONE, (name, value) => headers.set(name, value));
}

function standardHeadersOf(c: Context): StandardHeaders {
  return (c.get('standardHeaders') as StandardHeaders | undefined) ?? { constant: NONE, id: '', added: NONE };
}

/**
 * Visits the request's standard headers and `own` (sorted) in order of name; on a name in both,
 * the standard header first (so that `own` wins in a record).
 */
function eachStandardHeader(
  c: Context,
  own: readonly HeaderEntry[],
  visit: (name: string, value: string) => void,
): void {
  const { constant, id, added } = standardHeadersOf(c);
  const rest = added.length === 0 ? own : own.length === 0 ? added : mergeSorted(added, own);
  inOrder(constant, rest, (entry) => visit(entry[0], entry === REQUEST_ID_SLOT ? id : entry[1]));
}

function sortedEntries(headers: Readonly<Record<string, string>>): HeaderEntry[] {
  const entries: HeaderEntry[] = [];
  for (const name in headers) insertSorted(entries, [name.toLowerCase(), headers[name] as string]);
  return entries;
}

/** Inserts `entry` into the short sorted list `entries`, after any entry of the same name. */
function insertSorted(entries: HeaderEntry[], entry: HeaderEntry): void {
  let at = entries.length;
  while (at > 0 && (entries[at - 1] as HeaderEntry)[0] > entry[0]) at -= 1;
  entries.splice(at, 0, entry);
}

/** Two sorted lists as one; on a name in both, `b`'s entry comes last (and so wins in a record). */
function mergeSorted(a: readonly HeaderEntry[], b: readonly HeaderEntry[]): HeaderEntry[] {
  const merged: HeaderEntry[] = [];
  inOrder(a, b, (entry) => merged.push(entry));
  return merged;
}

/** Visits the entries of two sorted lists in order; on a name in both, `a`'s entry first. */
function inOrder(
  a: readonly HeaderEntry[],
  b: readonly HeaderEntry[],
  visit: (entry: HeaderEntry) => void,
): void {
  let j = 0;
  let next = b[j];
  for (const entry of a) {
    for (; next && next[0] < entry[0]; next = b[++j]) visit(next);
    visit(entry);
  }
  for (; next; next = b[++j]) visit(next);
}
