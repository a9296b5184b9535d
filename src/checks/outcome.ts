/**
 * The transport-neutral outcome of running one operation. HTTP maps it to 200 / 400 / 502 problem
 * JSON, MCP to a tool result; payment wraps the runner and settles only on `result`.
 */
import type { SourceFailureCode } from '../sources/failure.ts';

/** Why an input was refused before any payment logic. `code` is a stable problem code. */
export interface InvalidReason {
  code: string;
  message: string;
}

/** One upstream that failed, as reported in a 502 body (`upstreams: [{ name, error }]`). */
export interface UpstreamReport {
  name: string;
  error: SourceFailureCode;
  detail?: string;
}

export type RunOutcome<R> =
  | { type: 'result'; result: R }
  | { type: 'invalid_input'; reason: InvalidReason }
  | { type: 'upstream_failed'; upstreams: UpstreamReport[] };
