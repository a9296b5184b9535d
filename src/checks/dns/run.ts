/**
 * The dns check runner: gather through DoH within the check's budget, then assess. Resolvers that
 * are down or misbehaving become an `upstream_failed` outcome naming `doh`; a name that fails at
 * working resolvers is a section error in the result, never a missing record.
 */
import type { ValidDomain } from '../../domain/normalize.ts';
import { withDeadline } from '../../sources/deadline.ts';
import type { DohClient } from '../../sources/doh/client.ts';
import { gatherDns } from '../../sources/doh/gather.ts';
import type { RunOutcome } from '../outcome.ts';
import { assessDns } from './assess.ts';
import { DNS_CHECK_BUDGET_MS, DNS_CONTROL_RESERVE_MS } from './budget.ts';
import type { DnsResult } from './result.ts';

export interface DnsRunnerDeps {
  doh: DohClient;
  /** Clock for `checked_at`. */
  now: () => Date;
  /** The whole check's budget in milliseconds; default `DNS_CHECK_BUDGET_MS` (tests shorten it). */
  budgetMs?: number;
}

export function createDnsRunner(
  deps: DnsRunnerDeps,
): (domain: ValidDomain) => Promise<RunOutcome<DnsResult>> {
  const budgetMs = deps.budgetMs ?? DNS_CHECK_BUDGET_MS;
  const reserveMs = Math.min(DNS_CONTROL_RESERVE_MS, budgetMs / 4);
  return async function runDns(domain) {
    const gathered = await withDeadline(budgetMs, (controlSignal) =>
      withDeadline(budgetMs - reserveMs, (signal) => gatherDns(deps.doh, domain, { signal, controlSignal })),
    );
    if (!gathered.ok) {
      const { source, code, detail } = gathered.failure;
      return { type: 'upstream_failed', upstreams: [{ name: source, error: code, detail }] };
    }
    return { type: 'result', result: assessDns(gathered.value, domain.isApex, deps.now()) };
  };
}
