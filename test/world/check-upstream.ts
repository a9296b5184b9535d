/**
 * A counting loopback upstream and check runners that call it once per run, so payment tests count
 * "the check ran" at a real peer. Switch `failing` on to make every run a 502 `upstream_failed` outcome.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CheckRunners, PaidOperationId } from '../../src/catalog.ts';
import type { RunOutcome } from '../../src/checks/outcome.ts';
import type { ValidDomain } from '../../src/domain/normalize.ts';
import { outputExampleFor } from '../../src/payments/server/output-examples.ts';
import { type LoopbackServer, startLoopbackServer } from './loopback-server.ts';

export interface CheckUpstream extends LoopbackServer {
  /** When true the upstream answers 503, so runs fail. */
  failing: boolean;
  /** Delay before each answer, in milliseconds (keeps concurrent runs overlapping). */
  delayMs: number;
}

/** Starts the upstream; `events` receives `upstream:<operation>` for every request, in order. */
export async function startCheckUpstream(events: string[] = []): Promise<CheckUpstream> {
  const state = { failing: false, delayMs: 0 };
  const server = await startLoopbackServer(async (_req, res, url) => {
    events.push(`upstream:${url.pathname.slice(1)}`);
    if (state.delayMs > 0) await sleep(state.delayMs);
    if (state.failing) {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('upstream unavailable');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  return Object.assign(state, server);
}

/** Runners whose every run is one GET to `upstream`; a result is the operation's published example. */
export function upstreamRunners(upstream: CheckUpstream): CheckRunners {
  const run = async (operation: PaidOperationId, domain: ValidDomain): Promise<RunOutcome<never>> => {
    const response = await fetch(new URL(`/${operation}?domain=${domain.domain}`, upstream.url));
    await response.arrayBuffer();
    if (!response.ok)
      return { type: 'upstream_failed', upstreams: [{ name: 'check-upstream', error: 'http_status' }] };
    const example = outputExampleFor(operation) as Record<string, unknown>;
    return { type: 'result', result: { ...example, domain: domain.domain } as never };
  };
  return {
    cert: (domain) => run('v1_cert', domain),
    dns: (domain) => run('v1_dns', domain),
    expiry: (domain) => run('v1_expiry', domain),
    siteHealth: (domain) => run('v1_site_health', domain),
    admit: async () => null,
  };
}
