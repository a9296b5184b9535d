/** The backstop time bound of every check: past its budget a check is an upstream timeout. */
import { describe, expect, it } from 'vitest';
import { withinBudget } from '../../../src/checks/check-budget.ts';
import type { RunOutcome } from '../../../src/checks/outcome.ts';
import type { ValidDomain } from '../../../src/domain/normalize.ts';

const DOMAIN = { domain: 'example.com' } as ValidDomain;

describe('withinBudget', () => {
  it('answers a timeout of the named upstream when the check hangs', async () => {
    const hanging = () => new Promise<RunOutcome<string>>(() => {});
    const started = performance.now();
    const outcome = await withinBudget('ct', hanging, 80)(DOMAIN);
    const elapsed = performance.now() - started;
    expect(outcome).toEqual({ type: 'upstream_failed', upstreams: [{ name: 'ct', error: 'timeout' }] });
    expect(elapsed).toBeGreaterThanOrEqual(75);
    expect(elapsed).toBeLessThan(500);
  });

  it('passes a check that finishes in time through unchanged', async () => {
    const quick = async (domain: ValidDomain): Promise<RunOutcome<string>> => ({
      type: 'result',
      result: domain.domain,
    });
    expect(await withinBudget('doh', quick, 1_000)(DOMAIN)).toEqual({
      type: 'result',
      result: 'example.com',
    });
  });
});
