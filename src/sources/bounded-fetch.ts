/**
 * Fetch with a deadline, a byte cap and a content-type check: the one way every upstream is read.
 * It never throws for upstream trouble; it returns a typed `SourceFailure` instead.
 */
import { deadlineAfter } from './deadline.ts';
import { fail, type SourceFailure, type SourceResult, succeed } from './failure.ts';
import { OutboundRefusal } from './public-fetch/outbound-refusal.ts';

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export const USER_AGENT = 'website-checks/1.2 (+https://github.com/website-checks; domain checks for agents)';

export interface BoundedFetchOptions {
  /** Upstream name used in failures, e.g. `crt.sh`. */
  source: string;
  fetch: FetchLike;
  /** Connect + full-body budget in milliseconds. */
  timeoutMs: number;
  /** Largest body accepted, in bytes; a larger body is `too_large`. */
  maxBytes: number;
  /** Acceptable media types (without parameters); the body is refused as `bad_content_type` otherwise. */
  accept: readonly string[];
  /**
   * Statuses that are the whole answer (RFC 7480 §5.3: an RDAP 404 whatever its content type): they
   * come back with an empty body instead of a failure. Default: none.
   */
  statusOnly?: readonly number[];
  /**
   * `error` (default) for a configured upstream: a redirect is a failure (its 3xx is not followed;
   * Workers have no `redirect: 'error'`). `follow` only with a steered fetch (`public-fetch`),
   * which follows each redirect under the SSRF policy.
   */
  redirect?: 'error' | 'follow';
  headers?: Record<string, string>;
  /** Cancels the call early (for example when a hedged sibling already answered). */
  signal?: AbortSignal;
}

export interface BoundedResponse {
  status: number;
  headers: Headers;
  body: Uint8Array;
  ms: number;
}

/** Fetches `url` within the budget; the body is fully read (and capped) before it returns. */
export async function boundedFetch(
  url: URL,
  options: BoundedFetchOptions,
): Promise<SourceResult<BoundedResponse>> {
  const { source, timeoutMs, maxBytes } = options;
  const started = performance.now();
  const deadline = deadlineAfter(timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal;
  const failure = (code: SourceFailure['code'], detail: string, extra: Partial<SourceFailure> = {}) =>
    fail<BoundedResponse>({ code, source, detail, ...extra });

  try {
    const response = await options.fetch(url, {
      method: 'GET',
      headers: { 'user-agent': USER_AGENT, accept: options.accept.join(', '), ...options.headers },
      redirect: options.redirect === 'follow' ? 'follow' : 'manual',
      signal,
    });
    if (options.statusOnly?.includes(response.status)) {
      await response.body?.cancel().catch(() => {});
      return succeed({
        status: response.status,
        headers: response.headers,
        body: new Uint8Array(),
        ms: performance.now() - started,
      });
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      if (response.status === 429) {
        const retryAfter = response.headers.get('retry-after');
        return failure(
          'rate_limited',
          `${source} answered 429${retryAfter ? ` (retry after ${retryAfter})` : ''}`,
          {
            status: 429,
          },
        );
      }
      return failure('http_status', `${source} answered HTTP ${response.status}`, {
        status: response.status,
      });
    }
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!options.accept.includes(mediaType)) {
      await response.body?.cancel().catch(() => {});
      return failure('bad_content_type', `${source} answered ${mediaType || 'no content type'}`, {
        status: response.status,
      });
    }
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > maxBytes) {
      await response.body?.cancel().catch(() => {});
      return failure('too_large', `${source} body exceeds ${maxBytes} bytes`);
    }
    const body = await readCapped(response, maxBytes);
    if (body === null) return failure('too_large', `${source} body exceeds ${maxBytes} bytes`);
    return succeed({
      status: response.status,
      headers: response.headers,
      body,
      ms: performance.now() - started,
    });
  } catch (error) {
    if (error instanceof OutboundRefusal) return failure(error.code, `${source}: ${error.message}`);
    if (deadline.signal.aborted) return failure('timeout', `${source} did not answer within ${timeoutMs} ms`);
    if (options.signal?.aborted) return failure('timeout', `${source} call was cancelled`, { cause: error });
    return failure('network', `${source} could not be reached`, { cause: error });
  } finally {
    // The body is read or cancelled by now.
    deadline.clear();
  }
}

/** Reads the body, giving up (and cancelling the stream) as soon as it passes `maxBytes`. */
async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array | null> {
  if (!response.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    // Leaving the loop early makes the async iterator cancel the stream.
    if (total > maxBytes) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** Parses a JSON body, mapping a syntax error (e.g. a truncated body) to `malformed`. */
export function parseJsonBody(source: string, body: Uint8Array): SourceResult<unknown> {
  try {
    return succeed(JSON.parse(new TextDecoder('utf-8', { fatal: false }).decode(body)));
  } catch {
    return fail(notJsonFailure(source));
  }
}

/** The failure for a body that is not JSON. */
export function notJsonFailure(source: string): SourceFailure {
  return { code: 'malformed', source, detail: `${source} sent a body that is not valid JSON` };
}
