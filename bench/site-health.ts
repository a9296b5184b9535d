/**
 * The site-health fan-out (CT + DoH + RDAP + probe) against the closed world with fixed upstream
 * delays. Independent calls run in parallel, so wall time should track the slowest single check,
 * not the sum; SPF include lookups at one depth run in parallel, so a deep include tree costs one
 * DoH round trip per level.
 */
import { createRunners } from '../src/runners.ts';
import { nodeReach } from '../src/sources/node-reach.ts';
import { loadConfig } from '../src/config.ts';
import type { ValidDomain } from '../src/domain/normalize.ts';
import { normalizeDomain } from '../src/domain/normalize.ts';
import type { FetchLike } from '../src/sources/bounded-fetch.ts';
import { startWorld } from '../test/world/index.ts';

/** Added before each upstream answers, by upstream. */
export const DELAYS_MS = { crtsh: 300, rdap: 200, doh: 50 } as const;
/** A plain domain, and one with a 4-level SPF include tree (five DoH round trips in a row). */
const DOMAINS = ['healthy-shop.com', 'spf-deep.org'];
/** Site-health may cost at most this much over its slowest single check. */
export const OVERHEAD_BOUND_MS = 5;

export interface SiteHealthRow {
  domain: string;
  p50_ms: Record<'cert' | 'dns' | 'expiry' | 'site-health', number>;
  p90_site_health_ms: number;
  slowest_check_ms: number;
  over_slowest_ms: number;
}

export interface ProbeSharingReport {
  concurrent_cert_checks: number;
  crtsh_requests: number;
  probe_connections: number;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

export async function benchSiteHealth({ rounds = 15 } = {}): Promise<{
  rows: SiteHealthRow[];
  probe: ProbeSharingReport;
}> {
  const world = await startWorld();
  try {
    const config = loadConfig(world.env);
    const delayFor = (url: string): number => {
      if (url.startsWith(world.env.CRTSH_URL as string)) return DELAYS_MS.crtsh;
      if (url.startsWith(world.doh.url.href) || url.startsWith(world.dohFallback.url.href))
        return DELAYS_MS.doh;
      if (url.startsWith(world.rdapRegistry.url.href) || url.startsWith(world.rdapBootstrap.url.href))
        return DELAYS_MS.rdap;
      return 0;
    };
    const delayedFetch: FetchLike = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      await new Promise((resolve) => setTimeout(resolve, delayFor(url)));
      return fetch(input, init);
    };
    const freshRunners = () =>
      createRunners(config, {
        fetch: delayedFetch,
        now: () => new Date(),
        reach: nodeReach(world.site.caPem),
      });
    const valid = (name: string): ValidDomain => {
      const checked = normalizeDomain(name);
      if (!checked.valid) throw new Error(`benchmark domain ${name} must be valid`);
      return checked;
    };

    const rows: SiteHealthRow[] = [];
    for (const name of DOMAINS) {
      const domain = valid(name);
      const checks = ['cert', 'dns', 'expiry', 'siteHealth'] as const;
      const ms: number[][] = checks.map(() => []);
      for (let round = 0; round < rounds; round += 1) {
        for (const [index, check] of checks.entries()) {
          // Fresh runners for every measured call: every upstream is asked, nothing comes from a cache.
          const runners = freshRunners();
          const started = performance.now();
          const outcome = await runners[check](domain);
          if (outcome.type !== 'result') throw new Error(`${check} failed: ${JSON.stringify(outcome)}`);
          ms[index]?.push(performance.now() - started);
        }
      }
      const p50 = ms.map((values) => Math.round(percentile(values, 50) * 10) / 10);
      const slowest = Math.max(...p50.slice(0, 3));
      rows.push({
        domain: name,
        p50_ms: { cert: p50[0] ?? 0, dns: p50[1] ?? 0, expiry: p50[2] ?? 0, 'site-health': p50[3] ?? 0 },
        p90_site_health_ms: Math.round(percentile(ms[3] ?? [], 90)),
        slowest_check_ms: slowest,
        over_slowest_ms: Math.round(((p50[3] ?? 0) - slowest) * 10) / 10,
      });
    }

    // 50 concurrent cert checks of one domain through one set of runners (one process).
    const runners = freshRunners();
    const crtshBefore = world.crtsh.requests.length;
    const handshakesBefore = world.site.servernames.length;
    const concurrent = 50;
    await Promise.all(Array.from({ length: concurrent }, () => runners.cert(valid('healthy-shop.com'))));
    return {
      rows,
      probe: {
        concurrent_cert_checks: concurrent,
        crtsh_requests: world.crtsh.requests.length - crtshBefore,
        probe_connections: world.site.servernames.length - handshakesBefore,
      },
    };
  } finally {
    await world.close();
  }
}
