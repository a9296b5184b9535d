/**
 * Wires the configured upstream sources into the check runners the catalog calls. One instance per
 * process: the caches inside the sources are shared by every request.
 */
import type { CheckRunners } from './catalog.ts';
import type { Config } from './config.ts';
import { type BreakerBoard, createBreakerBoard } from './sources/breaker.ts';
import { createAriLookup } from './sources/ari/lookup.ts';
import { createAriClient } from './sources/ari/renewal-info.ts';
import type { FetchLike } from './sources/bounded-fetch.ts';
import type { SharedAnswers } from './sources/cache.ts';
import { CRTSH_SOURCE, crtshAnswers } from './sources/ct/crtsh.ts';
import {
  CT_HEDGE_DELAY_MS,
  createCertificateDer,
  createCtCache,
  createCtLookup,
} from './sources/ct/index.ts';
import { resolveAddresses } from './sources/doh/addresses.ts';
import type { SourceResult } from './sources/failure.ts';
import { createDohClient, DOH_SOURCE, resolverAnswers } from './sources/doh/client.ts';
import { shareProbes } from './sources/probe/shared.ts';
import { createPublicFetch } from './sources/public-fetch/public-fetch.ts';
import type { Reach } from './sources/reach.ts';
import { createRdapClient } from './sources/rdap/client.ts';
import { createCertRunner } from './checks/cert/run.ts';
import { withinBudget } from './checks/check-budget.ts';
import { createDnsRunner } from './checks/dns/run.ts';
import { createExpiryAdmission, createExpiryRunner, EXPIRY_BUDGET_MS } from './checks/expiry/run.ts';
import { createSiteHealthRunner } from './checks/site-health/run.ts';

export interface RunnerDeps {
  fetch: FetchLike;
  now: () => Date;
  /** How this runtime probes sites and reaches hosts it did not configure (`nodeReach`, `edgeReach`). */
  reach: Reach;
  /** The process's circuit breakers (crt.sh, the primary DoH resolver); default: a fresh board. */
  breakers?: BreakerBoard;
  /** Upstream answers other instances share (CT, RDAP and its bootstrap file); default: none. */
  sharedAnswers?: SharedAnswers;
}

/**
 * The runners, the steered fetch they share (a watch's webhook deliveries go through it too) and
 * its resolver (a webhook's name is judged by it before payment).
 */
export type Runners = CheckRunners & {
  publicFetch: FetchLike;
  resolve: (name: string) => Promise<SourceResult<string[]>>;
};

export function createRunners(config: Config, deps: RunnerDeps): Runners {
  const { upstreams } = config;
  const { fetch, now, reach, breakers = createBreakerBoard() } = deps;
  const doh = createDohClient({
    fetch,
    primaryUrl: upstreams.dohUrl,
    fallbackUrl: upstreams.dohFallbackUrl,
    primaryBreaker: breakers.of(DOH_SOURCE, () => resolverAnswers({ fetch, url: upstreams.dohUrl })),
  });
  const ct = createCtLookup({
    fetch,
    crtshUrl: upstreams.crtshUrl,
    certspotterUrl: upstreams.certspotterUrl,
    certspotterApiKey: upstreams.certspotterApiKey,
    crtshBreaker: breakers.of(CRTSH_SOURCE, () =>
      crtshAnswers({ fetch, baseUrl: upstreams.crtshUrl, timeoutMs: CT_HEDGE_DELAY_MS }),
    ),
    cache: createCtCache(undefined, deps.sharedAnswers),
  });
  const resolve = (name: string) => resolveAddresses(doh, name);
  // One address policy for every connection to a host the service did not configure.
  const publicFetch = createPublicFetch({
    resolve,
    allowPrivate: config.probe.allowPrivate,
    transport: reach.transport,
  });
  const rdap = createRdapClient({
    fetch,
    publicFetch,
    bootstrapUrl: upstreams.rdapBootstrapUrl,
    budgetMs: EXPIRY_BUDGET_MS,
    now,
    ...(deps.sharedAnswers ? { shared: deps.sharedAnswers } : {}),
  });
  // Concurrent checks of one domain share one probe connection; a verdict is reused for seconds.
  const probe = shareProbes(
    reach.probe({
      resolve: (name) => resolveAddresses(doh, name),
      port: config.probe.port,
      allowPrivate: config.probe.allowPrivate,
    }),
  );

  // ARI from the configured CAs (none: ARI off, `renewal.ari` null).
  const ari =
    upstreams.acmeDirectories.length > 0
      ? createAriLookup({
          client: createAriClient({ fetch, directories: upstreams.acmeDirectories, now }),
          certificateDer: createCertificateDer({ fetch, crtshUrl: upstreams.crtshUrl }),
        })
      : null;

  const cert = withinBudget(
    'ct',
    createCertRunner({ ct, probe, ari, now, readsServedLeaf: reach.readsServedLeaf }),
  );
  const dns = withinBudget('doh', createDnsRunner({ doh, now }));
  const expiry = withinBudget('rdap', createExpiryRunner({ rdap, now }));
  const admitExpiry = createExpiryAdmission({ rdap });
  return {
    cert,
    dns,
    expiry,
    siteHealth: createSiteHealthRunner({ cert, dns, expiry, now }),
    admit: (operation, domain) => (operation === 'v1_expiry' ? admitExpiry(domain) : Promise.resolve(null)),
    publicFetch,
    resolve,
  };
}
