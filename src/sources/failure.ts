/**
 * Typed upstream failures. Sources never throw for upstream trouble: they return
 * `{ ok: false, failure }`, and `failure.code` is what a 502 body reports in `upstreams[].error`.
 */

export type SourceFailureCode =
  | 'timeout'
  | 'http_status'
  | 'bad_content_type'
  | 'malformed'
  | 'too_large'
  | 'rate_limited'
  | 'network'
  | 'servfail'
  /** A DNS resolver answered REFUSED (it will not resolve the name for us). */
  | 'refused'
  | 'blocked_address'
  /** Not asked: the source failed for several domains and a control question; its breaker is open. */
  | 'circuit_open';

export interface SourceFailure {
  code: SourceFailureCode;
  /** Upstream name as reported to callers, e.g. `crt.sh`, `certspotter`, `doh`, `rdap`. */
  source: string;
  /** One short human-readable sentence; never includes secrets. */
  detail: string;
  status?: number;
  cause?: unknown;
}

/** Timing and cache facts for one upstream call, as reported in a result's `sources`. */
export interface SourceCall {
  name: string;
  url: string;
  ok: boolean;
  ms: number;
  cached: boolean;
  /** Present (true) when an open circuit breaker skipped this source: it was not asked. */
  skipped?: true;
}

export type SourceResult<T> = { ok: true; value: T } | { ok: false; failure: SourceFailure };

export function succeed<T>(value: T): SourceResult<T> {
  return { ok: true, value };
}

export function fail<T = never>(failure: SourceFailure): SourceResult<T> {
  return { ok: false, failure };
}
