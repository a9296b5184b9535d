/**
 * The dns check runner: gather through DoH, then assess. A resolver failure becomes an
 * `upstream_failed` outcome naming `doh`, never a result with missing records.
 */
import type { ValidDomain } from '../../domain/normalize.ts';
import type { DohClient } from '../../sources/doh/client.ts';
import { gatherDns } from '../../sources/doh/gather.ts';
import type { RunOutcome } from '../outcome.ts';
import { assessDns } from './assess.ts';
import type { DnsResult } from './result.ts';

export interface DnsRunnerDeps {
  doh: DohClient;
  /** Clock for `checked_at`. */
  now: () => Date;
}

export function createDnsRunner(
  deps: DnsRunnerDeps,
): (domain: ValidDomain) => Promise<RunOutcome<DnsResult>> {
  return async function runDns(domain) {
    const gathered = await gatherDns(deps.doh, domain);
    if (!gathered.ok) {
      const { source, code, detail } = gathered.failure;
      return { type: 'upstream_failed', upstreams: [{ name: source, error: code, detail }] };
    }
    return { type: 'result', result: assessDns(gathered.value, domain.isApex, deps.now()) };
  };
}
