/**
 * The `domain` query parameter. Missing or over-long input is a 400 on every route; on paid routes an
 * invalid domain is a 400 too, decided before any payment logic runs.
 */
import type { Context } from 'hono';
import { MAX_INPUT_LENGTH, normalizeDomain, type ValidDomain } from '../domain/normalize.ts';
import { PROBLEM_CODES } from '../vocabulary/problems.ts';
import { sendProblem } from './send-problem.ts';

/** The raw `domain` input (present and at most MAX_INPUT_LENGTH characters), or the 400 answer. */
export function domainInput(c: Context): string | Response {
  const input = c.req.query('domain');
  if (input === undefined || input.trim() === '') {
    return sendProblem(c, {
      status: 400,
      code: PROBLEM_CODES.missingDomain,
      title: 'Missing domain',
      detail: 'The query parameter `domain` is required, e.g. ?domain=example.com.',
    });
  }
  if (input.length > MAX_INPUT_LENGTH) {
    return sendProblem(c, {
      status: 400,
      code: PROBLEM_CODES.invalidDomain,
      title: 'Invalid domain',
      detail: `The domain parameter is longer than ${MAX_INPUT_LENGTH} characters.`,
    });
  }
  return input;
}

/** The normalized `domain`, or the 400 answer for a missing, over-long or invalid one. */
export function validDomain(c: Context): ValidDomain | Response {
  const input = domainInput(c);
  if (input instanceof Response) return input;
  const checked = normalizeDomain(input);
  if (!checked.valid) {
    return sendProblem(c, {
      status: 400,
      code: PROBLEM_CODES.invalidDomain,
      title: 'Invalid domain',
      detail: checked.reason.message,
      reason: checked.reason,
    });
  }
  const { valid: _valid, ...domain } = checked;
  return domain;
}
