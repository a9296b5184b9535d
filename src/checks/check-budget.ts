/**
 * The time bound of every paid answer's check: whatever the upstreams do, a check that has not
 * finished within its budget is an upstream timeout (502, not settled). Each source has its own,
 * shorter budget; this is the backstop that makes the bound a promise.
 */
import type { ValidDomain } from '../domain/normalize.ts';
import type { RunOutcome } from './outcome.ts';

/** Longest a check may run, site-health included (its three checks run concurrently). */
export const CHECK_BUDGET_MS = 12_000;

/** `runner` bounded by `budgetMs`; past it the answer is a timeout of `upstream`. */
export function withinBudget<R>(
  upstream: string,
  runner: (domain: ValidDomain) => Promise<RunOutcome<R>>,
  budgetMs: number = CHECK_BUDGET_MS,
): (domain: ValidDomain) => Promise<RunOutcome<R>> {
  return async function boundedCheck(domain) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<RunOutcome<R>>((resolve) => {
      timer = setTimeout(
        () => resolve({ type: 'upstream_failed', upstreams: [{ name: upstream, error: 'timeout' }] }),
        budgetMs,
      );
    });
    try {
      return await Promise.race([runner(domain), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
}
