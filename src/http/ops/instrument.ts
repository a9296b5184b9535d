/**
 * Recording points that need no change to the code they observe: one count per answered request
 * (by matched route, never the raw path), and per check run its duration and the upstream calls
 * its result reports in `sources`.
 */
import type { Context } from 'hono';
import { type CheckRunners, freeOperations, paidOperations } from '../../catalog.ts';
import type { RunOutcome } from '../../checks/outcome.ts';
import { DOCUMENT_PATHS } from '../../vocabulary/document-paths.ts';
import type { SourceCall } from '../../sources/failure.ts';
import type { Metrics } from '../../ops/metrics.ts';
import { OPS_PATHS } from './routes.ts';

/** Source labels: the upstreams' names, the fallback resolver told apart by its URL. */
const SOURCES = new Set([
  'crt.sh',
  'certspotter',
  'doh',
  'rdap-bootstrap',
  'rdap',
  'rdap-registrar',
  'probe',
]);

/** Routes answered by middleware before any handler (a 429, a 405): named by their path. */
const KNOWN_PATHS = new Set<string>([
  ...paidOperations.map((operation) => operation.route),
  ...freeOperations.flatMap((operation) => (operation.route ? [operation.route] : [])),
  ...Object.values(DOCUMENT_PATHS),
  ...Object.values(OPS_PATHS),
]);

/**
 * Counts each answered request under the route pattern it matched, or its path when it is a known
 * route answered by middleware, else `unmatched`.
 */
export function requestCounter(metrics: Metrics): (c: Context, routePath: string) => void {
  return function countRequest(c, routePath) {
    let route = routePath;
    if (route === '/*') route = KNOWN_PATHS.has(c.req.path) ? c.req.path : 'unmatched';
    metrics.request(route, c.res.status);
  };
}

/** `runners` whose runs are timed and whose reported upstream calls are counted. */
export function instrumentRunners(
  runners: CheckRunners,
  metrics: Metrics,
  dohFallbackUrl: URL,
): CheckRunners {
  const fallback = dohFallbackUrl.href;
  const sourceLabel = (call: Pick<SourceCall, 'name' | 'url'>) => {
    if (call.name === 'doh' && call.url === fallback) return 'doh-fallback';
    return SOURCES.has(call.name) ? call.name : 'other';
  };

  function timed<R>(operation: string, run: (domain: never) => Promise<RunOutcome<R>>) {
    return async (domain: never): Promise<RunOutcome<R>> => {
      const started = performance.now();
      const outcome = await run(domain);
      const seconds = (performance.now() - started) / 1000;
      metrics.check(operation, outcome.type, seconds);
      if (outcome.type === 'result') {
        const { sources } = outcome.result as { sources?: SourceCall[] };
        for (const call of sources ?? []) {
          const kind = call.skipped ? 'skipped' : call.cached ? 'cached' : call.ok ? 'ok' : 'error';
          metrics.upstream(sourceLabel(call), kind, call.ms / 1000);
        }
      } else if (outcome.type === 'upstream_failed') {
        // A failed check reports no timings: the check's own duration bounds each failed call.
        for (const upstream of outcome.upstreams) {
          const name = SOURCES.has(upstream.name) ? upstream.name : 'other';
          metrics.upstream(name, upstream.error === 'circuit_open' ? 'skipped' : 'error', seconds);
        }
      }
      return outcome;
    };
  }

  return {
    cert: timed('cert', runners.cert),
    dns: timed('dns', runners.dns),
    expiry: timed('expiry', runners.expiry),
    siteHealth: timed('site_health', runners.siteHealth),
    admit: runners.admit,
  };
}
