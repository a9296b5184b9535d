/** Maps a refused run outcome to problem JSON: 400 for invalid input, 502 naming the failed upstreams. */
import type { RunOutcome } from '../checks/outcome.ts';
import { PROBLEM_CODES, type Problem } from './problems.ts';

export type RefusedOutcome = Exclude<RunOutcome<unknown>, { type: 'result' }>;

export function outcomeProblem(outcome: RefusedOutcome): Problem {
  if (outcome.type === 'invalid_input') {
    return { status: 400, code: outcome.reason.code, title: 'Invalid input', detail: outcome.reason.message };
  }
  const allTimedOut = outcome.upstreams.length > 0 && outcome.upstreams.every((u) => u.error === 'timeout');
  return {
    status: 502,
    code: allTimedOut ? PROBLEM_CODES.upstreamTimeout : PROBLEM_CODES.upstreamFailed,
    title: 'Upstream data source failed',
    detail: `No result could be produced: ${outcome.upstreams.map((u) => `${u.name} (${u.error})`).join(', ')}. You were not charged.`,
    upstreams: outcome.upstreams.map(({ name, error }) => ({ name, error })),
  };
}
