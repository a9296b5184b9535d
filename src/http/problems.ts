/**
 * RFC 9457 problem JSON: every error body. `code` values are stable and published;
 * never rename one.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { reply } from './hygiene/standard-headers.ts';

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
  status: ContentfulStatusCode;
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

/** Sends `problem` as `application/problem+json`. */
export function sendProblem(c: Context, problem: Problem, headers: Record<string, string> = {}): Response {
  return reply(c, JSON.stringify(problemBody(problem)), problem.status, {
    'content-type': PROBLEM_MEDIA_TYPE,
    ...headers,
  });
}
