/**
 * The transport-neutral outcome of running one operation. HTTP maps it to 200 / 400 / 502 problem
 * JSON, MCP to a tool result; payment wraps the runner and settles only on `result`.
 */
import type { InvalidReason } from '../domain/invalid-reasons.ts';
import type { SourceFailureCode } from '../sources/failure.ts';

/** One upstream that failed, as reported in a 502 body (`upstreams: [{ name, error }]`). */
export interface UpstreamReport {
  name: string;
  error: SourceFailureCode;
  detail?: string;
}

/**
 * The problem code of an upstream failure: `upstream_timeout` when every failed upstream timed out,
 * else `upstream_failed`. Used by the HTTP problem body, the MCP tool error and site-health sections.
 */
export function upstreamFailureCode(
  upstreams: readonly UpstreamReport[],
): 'upstream_timeout' | 'upstream_failed' {
  const allTimedOut = upstreams.length > 0 && upstreams.every((u) => u.error === 'timeout');
  return allTimedOut ? 'upstream_timeout' : 'upstream_failed';
}

/** The failed upstreams as text, e.g. `crt.sh (timeout), certspotter (http_status)`. */
export function describeUpstreams(upstreams: readonly UpstreamReport[]): string {
  return upstreams.map((u) => `${u.name} (${u.error})`).join(', ');
}

export type RunOutcome<R> =
  | { type: 'result'; result: R }
  | { type: 'invalid_input'; reason: InvalidReason }
  | { type: 'upstream_failed'; upstreams: UpstreamReport[] };
