import type { Context } from 'hono';
import { PROBLEM_MEDIA_TYPE, type Problem, problemBody } from '../vocabulary/problems.ts';
import { reply } from './hygiene/standard-headers.ts';

/** Sends `problem` as `application/problem+json`. */
export function sendProblem(c: Context, problem: Problem, headers: Record<string, string> = {}): Response {
  return reply(c, JSON.stringify(problemBody(problem)), problem.status, {
    'content-type': PROBLEM_MEDIA_TYPE,
    ...headers,
  });
}
