/** Maps a refused run outcome to problem JSON: 400 for invalid input, 502 naming the failed upstreams. */
import { describeUpstreams, type RunOutcome, upstreamFailureCode } from '../checks/outcome.ts';
import type { Problem } from './problems.ts';

export type RefusedOutcome = Exclude<RunOutcome<unknown>, { type: 'result' }>;

export function outcomeProblem(outcome: RefusedOutcome): Problem {
  if (outcome.type === 'invalid_input') {
    const { code, message, refusal } = outcome.reason;
    if (refusal) return { ...refusal, code, detail: message, reason: message };
    return { status: 400, code, title: 'Invalid input', detail: message };
  }
  return {
    status: 502,
    code: upstreamFailureCode(outcome.upstreams),
    title: 'Upstream data source failed',
    detail: `No result could be produced: ${describeUpstreams(outcome.upstreams)}. You were not charged.`,
    upstreams: outcome.upstreams.map(({ name, error }) => ({ name, error })),
  };
}
