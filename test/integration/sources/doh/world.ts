/** Shared setup for the DoH and dns check tests: every world scenario behind two loopback resolvers. */

import { normalizeDomain, type ValidDomain } from '../../../../src/domain/normalize.ts';
import type { SourceCache } from '../../../../src/sources/cache.ts';
import type { DnsAnswer } from '../../../../src/sources/doh/answer.ts';
import { createDohClient, type DohClient } from '../../../../src/sources/doh/client.ts';
import { type FakeDoh, startDoh } from '../../../world/doh.ts';
import type { Scenario } from '../../../world/scenario.ts';
import { loadScenarios } from '../../../world/scenarios/index.ts';

export interface DnsWorld {
  primary: FakeDoh;
  fallback: FakeDoh;
  /** A client on both fakes with a fresh cache. */
  client(options?: { timeoutMs?: number; hedgeMs?: number; cache?: SourceCache<DnsAnswer> }): DohClient;
  close(): Promise<void>;
}

/** Starts two resolvers (primary and fallback) over all scenario files plus `extra`. */
export async function startDnsWorld(...extra: Scenario[]): Promise<DnsWorld> {
  const scenarios = await loadScenarios();
  for (const scenario of extra) scenarios.set(scenario.domain, scenario);
  const primary = await startDoh(scenarios);
  const fallback = await startDoh(scenarios);
  return {
    primary,
    fallback,
    client: (options = {}) =>
      createDohClient({
        fetch: (input, init) => fetch(input, init),
        primaryUrl: primary.endpoint,
        fallbackUrl: fallback.endpoint,
        timeoutMs: options.timeoutMs ?? 2_000,
        ...(options.hedgeMs === undefined ? {} : { hedgeMs: options.hedgeMs }),
        cache: options.cache,
      }),
    close: async () => {
      await Promise.all([primary.close(), fallback.close()]);
    },
  };
}

/** The validated form of a domain the tests know to be valid. */
export function validDomain(input: string): ValidDomain {
  const check = normalizeDomain(input);
  if (!check.valid) throw new Error(`test domain ${input} is invalid: ${check.reason.message}`);
  return check;
}
