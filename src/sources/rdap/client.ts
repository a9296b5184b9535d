/**
 * The RDAP client the expiry check uses: bootstrap (which server?) plus lookup (what does it say?),
 * under one deadline, with answers cached for an hour and identical concurrent lookups sharing one
 * upstream call. With `shared`, the answers and the bootstrap file are reused across instances
 * too: registries rate-limit hard, and a fleet then asks them once per domain and hour.
 */
import type { FetchLike } from '../bounded-fetch.ts';
import { createSourceCache, type SharedAnswers } from '../cache.ts';
import { withDeadline } from '../deadline.ts';
import { fail, type SourceCall, type SourceResult } from '../failure.ts';
import { beforeAbort } from '../public-fetch/before-abort.ts';
import { createRdapBootstrap, RDAP_BOOTSTRAP_SOURCE, type ServerMatch } from './bootstrap.ts';
import { lookupDomain, type RegistryAnswer } from './lookup.ts';
import { rdapSharedTier } from './shared-answer.ts';

/** How long an RDAP answer is reused, in milliseconds (1 h: short, so a renewal shows up soon). */
export const RDAP_CACHE_TTL_MS = 60 * 60 * 1000;
/** Most RDAP answers kept in memory. */
export const RDAP_CACHE_MAX_ENTRIES = 10_000;

/** The outcome of a lookup; `sources` lists the bootstrap, registry and referral calls made. */
export type RdapAnswer = { kind: 'unsupported'; sources: SourceCall[] } | RegistryAnswer;

export interface RdapClient {
  /** The RDAP base URL for `domain` from the bootstrap; `base: null` when its TLD has no RDAP service. */
  findServer(domain: string): Promise<SourceResult<ServerMatch>>;
  /** Registration data for `domain` (pass the registrable domain, ASCII). Never throws for upstream trouble. */
  lookup(domain: string): Promise<SourceResult<RdapAnswer>>;
}

export interface RdapClientDeps {
  /** Plain fetch, for the configured bootstrap file only. */
  fetch: FetchLike;
  /**
   * The steered fetch (`createPublicFetch`) for every URL the bootstrap or a registry hands out:
   * RDAP bases, registrar referrals and their redirects.
   */
  publicFetch: FetchLike;
  /** IANA's `dns.json` (config `RDAP_BOOTSTRAP_URL`). */
  bootstrapUrl: URL;
  /** One deadline in milliseconds for a whole lookup: bootstrap, registry and referral together. */
  budgetMs: number;
  /** Clock for the bootstrap's 24 h and the answers' 1 h lifetimes. */
  now: () => Date;
  /** Answers other instances share (the bootstrap file and the registries' answers); default: none. */
  shared?: SharedAnswers;
}

export function createRdapClient(deps: RdapClientDeps): RdapClient {
  const bootstrap = createRdapBootstrap({
    fetch: deps.fetch,
    url: deps.bootstrapUrl,
    timeoutMs: deps.budgetMs,
    now: deps.now,
    ...(deps.shared ? { shared: deps.shared } : {}),
  });
  const cache = createSourceCache<RegistryAnswer>({
    max: RDAP_CACHE_MAX_ENTRIES,
    ttlMs: RDAP_CACHE_TTL_MS,
    now: () => deps.now().getTime(),
    ...(deps.shared ? { shared: rdapSharedTier(deps.shared) } : {}),
  });

  return {
    findServer: (domain) => bootstrap.findServer(domain),
    async lookup(domain) {
      const name = domain.toLowerCase().replace(/\.$/, '');
      return withDeadline(deps.budgetMs, (deadline) => lookupBefore(name, deadline));
    },
  };

  async function lookupBefore(name: string, deadline: AbortSignal): Promise<SourceResult<RdapAnswer>> {
    // A shared bootstrap fetch may outlive this lookup's deadline; the lookup does not wait for it.
    const server = await beforeAbort(bootstrap.findServer(name), deadline);
    if (server === undefined) {
      return fail({
        code: 'timeout',
        source: RDAP_BOOTSTRAP_SOURCE,
        detail: `${RDAP_BOOTSTRAP_SOURCE} did not answer within the ${deps.budgetMs} ms budget`,
      });
    }
    if (!server.ok) return server;
    const { base, call } = server.value;
    if (!base) return { ok: true, value: { kind: 'unsupported', sources: [call] } };
    const { result, cached } = await cache.get(`${base.href} ${name}`, () =>
      lookupDomain(base, name, { fetch: deps.publicFetch, budgetMs: deps.budgetMs, deadline }),
    );
    if (!result.ok) return result;
    // Contract §3: a cached answer reports `cached: true` and 0 ms.
    const calls = result.value.sources.map((c) => (cached ? { ...c, ms: 0, cached: true } : c));
    return { ok: true, value: { ...result.value, sources: [call, ...calls] } };
  }
}
