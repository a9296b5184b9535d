/**
 * Wires the configured upstream sources into the check runners the catalog calls. One instance per
 * process: the caches inside the sources are shared by every request.
 */
import type { CheckRunners } from '../catalog.ts';
import type { Config } from '../config.ts';
import type { FetchLike } from '../sources/bounded-fetch.ts';
import { createCtLookup } from '../sources/ct/index.ts';
import { resolveAddresses } from '../sources/doh/addresses.ts';
import { createDohClient } from '../sources/doh/client.ts';
import { createProbe } from '../sources/probe/probe.ts';
import { createRdapClient } from '../sources/rdap/client.ts';
import { createCertRunner } from './cert/run.ts';
import { withinBudget } from './check-budget.ts';
import { createDnsRunner } from './dns/run.ts';
import { createExpiryAdmission, createExpiryRunner } from './expiry/run.ts';
import { createSiteHealthRunner } from './site-health/run.ts';

/** Budget for the bootstrap fetch, and for one registry lookup plus its registrar referral. */
export const RDAP_TIMEOUT_MS = 8_000;

export interface RunnerDeps {
  fetch: FetchLike;
  now: () => Date;
  /** Extra trust anchors for the live probe (tests only; production trusts the system store). */
  probeCa?: string;
}

export function createRunners(config: Config, deps: RunnerDeps): CheckRunners {
  const { upstreams } = config;
  const { fetch, now } = deps;
  const doh = createDohClient({ fetch, primaryUrl: upstreams.dohUrl, fallbackUrl: upstreams.dohFallbackUrl });
  const ct = createCtLookup({
    fetch,
    crtshUrl: upstreams.crtshUrl,
    certspotterUrl: upstreams.certspotterUrl,
    certspotterApiKey: upstreams.certspotterApiKey,
  });
  const rdap = createRdapClient({
    fetch,
    bootstrapUrl: upstreams.rdapBootstrapUrl,
    timeoutMs: RDAP_TIMEOUT_MS,
    now,
  });
  const probe = createProbe({
    resolve: (name) => resolveAddresses(doh, name),
    port: config.probe.port,
    allowPrivate: config.probe.allowPrivate,
    ...(deps.probeCa ? { ca: deps.probeCa } : {}),
  });

  const cert = withinBudget('ct', createCertRunner({ ct, probe, now }));
  const dns = withinBudget('doh', createDnsRunner({ doh, now }));
  const expiry = withinBudget('rdap', createExpiryRunner({ rdap, now }));
  const admitExpiry = createExpiryAdmission({ rdap });
  return {
    cert,
    dns,
    expiry,
    siteHealth: createSiteHealthRunner({ cert, dns, expiry, now }),
    admit: (operation, domain) => (operation === 'v1_expiry' ? admitExpiry(domain) : Promise.resolve(null)),
  };
}
