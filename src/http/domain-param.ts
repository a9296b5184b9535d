/**
 * The `domain` query parameter, read once per request. Missing or over-long input is a 400 on every
 * route; on paid routes an invalid domain is a 400 too, decided before any payment logic runs.
 */
import type { MiddlewareHandler } from 'hono';
import { MAX_INPUT_LENGTH, normalizeDomain, type ValidDomain } from '../domain/normalize.ts';
import { PROBLEM_CODES, sendProblem } from './problems.ts';

export interface DomainVariables {
  /** The raw `domain` input (present and at most MAX_INPUT_LENGTH characters). */
  domainInput: string;
  /** The normalized domain; set by `requireValidDomain` only. */
  domain: ValidDomain;
}

/** Refuses a missing or over-long `domain` with 400 and stores the raw input. */
export function requireDomainInput(): MiddlewareHandler<{ Variables: DomainVariables }> {
  return async function requireDomainInput(c, next) {
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
    c.set('domainInput', input);
    await next();
  };
}

/** After `requireDomainInput`: refuses an invalid domain with 400 and stores the normalized one. */
export function requireValidDomain(): MiddlewareHandler<{ Variables: DomainVariables }> {
  return async function requireValidDomain(c, next) {
    const checked = normalizeDomain(c.get('domainInput'));
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
    c.set('domain', domain);
    await next();
  };
}
