/**
 * RFC 9457 problem JSON: every error body, whichever transport sends it (`http/send-problem.ts`,
 * `mcp/tool-result.ts`) and whichever part refuses (the payment roles too). `code` values are stable
 * and published; never rename one.
 */

export const PROBLEM_CODES = {
  missingDomain: 'missing_domain',
  invalidDomain: 'invalid_domain',
  unsupportedTld: 'unsupported_tld',
  upstreamFailed: 'upstream_failed',
  upstreamTimeout: 'upstream_timeout',
  paymentRequired: 'payment_required',
  paymentInFlight: 'payment_in_flight',
  invalidPaymentIdentifier: 'invalid_payment_identifier',
  paymentIdentifierConflict: 'payment_identifier_conflict',
  paymentUnavailable: 'payment_unavailable',
  shuttingDown: 'shutting_down',
  rateLimited: 'rate_limited',
  unauthorized: 'unauthorized',
  notFound: 'not_found',
  methodNotAllowed: 'method_not_allowed',
  payloadTooLarge: 'payload_too_large',
  uriTooLong: 'uri_too_long',
  internalError: 'internal_error',
} as const;

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

export interface Problem {
  /** An HTTP status with a body: 400 to 599 here. */
  status: number;
  code: string;
  title: string;
  detail: string;
  [extra: string]: unknown;
}

/** The problem's `type` URI: a stable URN per code, so clients can branch without a lookup. */
export function problemType(code: string): string {
  return `urn:website-checks:problem:${code}`;
}

export function problemBody({ status, code, title, detail, ...extra }: Problem) {
  return { type: problemType(code), title, status, detail, code, ...extra };
}
