/** The CT fakes' shared setup for the source tests: a fixed clock and the CT scenarios as a map. */
import type { Scenario } from '../../../world/scenario.ts';
import crtshOutage from '../../../world/scenarios/crtsh-outage.net.ts';
import ctOutage from '../../../world/scenarios/ct-outage.org.ts';
import dualCa from '../../../world/scenarios/dual-ca-store.com.ts';
import healthyShop from '../../../world/scenarios/healthy-shop.com.ts';
import noCert from '../../../world/scenarios/no-cert-yet.com.ts';
import wildcardCover from '../../../world/scenarios/wildcard-cover.com.ts';

/** The fakes' "now" in every CT source test. */
export const NOW = new Date('2026-10-20T12:00:00Z');
export const DAY_MS = 86_400_000;

/** Keys scenarios by domain, as `loadScenarios()` does. */
export function scenarioMap(...scenarios: Scenario[]): Map<string, Scenario> {
  return new Map(scenarios.map((scenario) => [scenario.domain, scenario]));
}

export const ctScenarios = (...extra: Scenario[]) =>
  scenarioMap(healthyShop, wildcardCover, dualCa, noCert, crtshOutage, ctOutage, ...extra);

/** Node's fetch, injected as the sources expect. */
export const loopbackFetch = (input: string | URL | Request, init?: RequestInit) => fetch(input, init);
