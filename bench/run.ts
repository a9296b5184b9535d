/**
 * Benchmark: the site-health fan-out (CT + DoH + RDAP + probe) against the closed world with fixed
 * upstream delays. Independent calls run in parallel, so wall time should track the slowest single
 * source, not the sum. Prints a table; not a test (`npm run bench`).
 */
import { createRunners } from '../src/checks/runners.ts';
import { loadConfig } from '../src/config.ts';
import type { ValidDomain } from '../src/domain/normalize.ts';
import { normalizeDomain } from '../src/domain/normalize.ts';
import type { FetchLike } from '../src/sources/bounded-fetch.ts';
import { startWorld } from '../test/world/index.ts';

/** Added before each upstream answers, by the upstream's base URL. */
const DELAYS_MS = { crtsh: 400, doh: 40, rdap: 250 } as const;
const ROUNDS = 15;

const world = await startWorld();
const config = loadConfig(world.env);
const delayFor = (url: string): number => {
  if (url.startsWith(world.env.CRTSH_URL as string)) return DELAYS_MS.crtsh;
  if (url.startsWith(world.doh.url.href) || url.startsWith(world.dohFallback.url.href)) return DELAYS_MS.doh;
  if (url.startsWith(world.rdapRegistry.url.href) || url.startsWith(world.rdapBootstrap.url.href))
    return DELAYS_MS.rdap;
  return 0;
};
const delayedFetch: FetchLike = async (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  await new Promise((resolve) => setTimeout(resolve, delayFor(url)));
  return fetch(input, init);
};

/** A plain domain, and one with a 4-level SPF include tree (five DoH round trips in a row). */
const DOMAINS = ['healthy-shop.com', 'spf-deep.org'];
/** Site-health may cost at most this much over its slowest single check (the bound). */
const OVERHEAD_BOUND_MS = 5;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

process.stdout.write(
  `site-health fan-out, ${ROUNDS} rounds, upstream delays ${JSON.stringify(DELAYS_MS)} ms (per request)\n`,
);
for (const name of DOMAINS) {
  const checked = normalizeDomain(name);
  if (!checked.valid) throw new Error(`benchmark domain ${name} must be valid`);
  const domain: ValidDomain = checked;

  type Timed = { label: string; ms: number[] };
  const rows: Timed[] = ['cert', 'dns', 'expiry', 'site-health'].map((label) => ({ label, ms: [] }));
  const checks = ['cert', 'dns', 'expiry', 'siteHealth'] as const;
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [index, check] of checks.entries()) {
      // Fresh runners for every measured call: every upstream is asked, nothing comes from a cache.
      const runners = createRunners(config, {
        fetch: delayedFetch,
        now: () => new Date(),
        probeCa: world.site.caPem,
      });
      const started = performance.now();
      const outcome = await runners[check](domain);
      if (outcome.type !== 'result') throw new Error(`${check} failed: ${JSON.stringify(outcome)}`);
      rows[index]?.ms.push(performance.now() - started);
    }
  }

  const slowest = Math.max(...rows.slice(0, 3).map((row) => percentile(row.ms, 50)));
  const sum = rows.slice(0, 3).reduce((total, row) => total + percentile(row.ms, 50), 0);
  process.stdout.write(`\n${name}\ncheck         p50 ms   p95 ms\n`);
  for (const row of rows) {
    process.stdout.write(
      `${row.label.padEnd(12)} ${percentile(row.ms, 50).toFixed(0).padStart(7)} ${percentile(row.ms, 95).toFixed(0).padStart(8)}\n`,
    );
  }
  const bundle = percentile(rows[3]?.ms ?? [], 50);
  const over = bundle - slowest;
  process.stdout.write(
    `site-health p50 ${bundle.toFixed(0)} ms vs slowest single check ${slowest.toFixed(0)} ms (sum of checks ${sum.toFixed(0)} ms): ${over.toFixed(1)} ms over the slowest (bound ${OVERHEAD_BOUND_MS} ms: ${over <= OVERHEAD_BOUND_MS ? 'met' : 'NOT met'})\n`,
  );
}
await world.close();
