/** The live probe against the loopback HTTPS site: each site mode, the budget, TLS trust, SNI and Host. */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { liveProbeSchema } from '../../../../src/checks/cert/result.ts';
import { fail, succeed } from '../../../../src/sources/failure.ts';
import { connectPinned, type ProbeTarget } from '../../../../src/sources/probe/pinned-request.ts';
import { createProbe, PROBE_TIMEOUT_MS, type ProbeDeps } from '../../../../src/sources/probe/probe.ts';
import { type HttpsSite, OTHER_HOST, startHttpsSite, writeCaFile } from '../../../world/https-site.ts';
import type { Scenario } from '../../../world/scenario.ts';
import flakyEdge from '../../../world/scenarios/flaky-edge.net.ts';
import frozenOrigin from '../../../world/scenarios/frozen-origin.net.ts';
import legacyAppliance from '../../../world/scenarios/legacy-appliance.com.ts';
import movedBrand from '../../../world/scenarios/moved-brand.org.ts';
import originOutage from '../../../world/scenarios/origin-outage.com.ts';
import parkedAlias from '../../../world/scenarios/parked-alias.com.ts';
import pickyFirewall from '../../../world/scenarios/picky-firewall.net.ts';
import { createTestCa, TEST_LEAF_VALIDITY_DAYS } from '../../../world/test-ca.ts';

const HEALTHY: Scenario = {
  domain: 'corner-bistro.com',
  about: 'A site that answers 200.',
  https: { mode: 'ok' },
};
const SCENARIOS = [
  HEALTHY,
  originOutage,
  frozenOrigin,
  flakyEdge,
  parkedAlias,
  movedBrand,
  legacyAppliance,
  pickyFirewall,
];
/** Short budget for the hang cases, in milliseconds, and how late the probe may end past it. */
const SHORT_BUDGET_MS = 400;
const LATE_MARGIN_MS = 250;

let site: HttpsSite;

beforeAll(async () => {
  site = await startHttpsSite(new Map(SCENARIOS.map((scenario) => [scenario.domain, scenario])));
});
afterAll(() => site.close());
beforeEach(() => {
  site.mode = null;
  site.requests.length = 0;
  site.servernames.length = 0;
});

/** A probe aimed at the site the way the test world runs it: loopback allowed, the test CA trusted. */
function loopbackProbe(overrides: Partial<ProbeDeps> = {}) {
  return createProbe({
    resolve: async () => succeed(['127.0.0.1']),
    port: site.port,
    allowPrivate: true,
    ca: site.caPem,
    ...overrides,
  });
}

/** Every request the site saw since the last reset, as `METHOD host path`. */
function recordedRequests() {
  return site.requests.map((request) => `${request.method} ${request.headers.host} ${request.url.pathname}`);
}

describe('createProbe against each site mode', () => {
  it.each([
    [HEALTHY.domain, { ok: true, http_status: 200, error: null }, ['HEAD']],
    [originOutage.domain, { ok: false, http_status: 500, error: 'http_error' }, ['HEAD']],
    [flakyEdge.domain, { ok: false, http_status: null, error: 'reset' }, ['HEAD', 'GET']],
    [parkedAlias.domain, { ok: false, http_status: null, error: 'tls_hostname_mismatch' }, []],
    [movedBrand.domain, { ok: true, http_status: 301, error: null }, ['HEAD']],
    [legacyAppliance.domain, { ok: true, http_status: 200, error: null }, ['HEAD', 'GET']],
    [pickyFirewall.domain, { ok: true, http_status: 200, error: null }, ['HEAD', 'GET']],
  ] as const)('%s → %j after %j', async (domain, expected, methods) => {
    const result = await loopbackProbe()(domain);
    expect(liveProbeSchema.parse(result)).toEqual({ ...expected, ms: expect.any(Number) });
    expect(result.ms).toBeGreaterThanOrEqual(0);
    expect(result.ms).toBeLessThan(PROBE_TIMEOUT_MS);
    expect(recordedRequests()).toEqual(methods.map((method) => `${method} ${domain}:${site.port} /`));
  });

  it('does not follow a redirect: one request, none to the Location host', async () => {
    await loopbackProbe()(movedBrand.domain);
    expect(site.requests).toHaveLength(1);
    expect(site.servernames).toEqual([movedBrand.domain]);
  });

  it('sends the domain as SNI and as Host, while connecting to the resolved address', async () => {
    const targets: ProbeTarget[] = [];
    const probe = loopbackProbe({
      connect: (target) => {
        targets.push(target);
        return connectPinned(target);
      },
    });
    expect(await probe(HEALTHY.domain)).toMatchObject({ ok: true, http_status: 200 });
    expect(targets.map(({ address, port, servername }) => ({ address, port, servername }))).toEqual([
      { address: '127.0.0.1', port: site.port, servername: HEALTHY.domain },
    ]);
    expect(site.servernames).toEqual([HEALTHY.domain]);
    expect(site.requests[0]?.headers.host).toBe(`${HEALTHY.domain}:${site.port}`);
  });

  it('fails as tls_untrusted when the issuing CA is not trusted', async () => {
    const result = await loopbackProbe({ ca: undefined })(HEALTHY.domain);
    expect(result).toMatchObject({ ok: false, http_status: null, error: 'tls_untrusted' });
    expect(site.requests).toHaveLength(0);
  });

  it('trusts the test CA through NODE_EXTRA_CA_CERTS in a child process (no `ca` option)', async () => {
    const caFile = await writeCaFile(site.caPem);
    const probeModule = new URL('../../../../src/sources/probe/probe.ts', import.meta.url).href;
    const script = `
      const { createProbe } = await import(${JSON.stringify(probeModule)});
      const probe = createProbe({ resolve: async () => ({ ok: true, value: ['127.0.0.1'] }), port: ${site.port}, allowPrivate: true });
      process.stdout.write(JSON.stringify(await probe(${JSON.stringify(HEALTHY.domain)})));`;
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile.path },
      });
      expect(JSON.parse(stdout)).toMatchObject({ ok: true, http_status: 200, error: null });
    } finally {
      await caFile.remove();
    }
  });

  it('fails as tls_hostname_mismatch whenever the site is switched to another name’s certificate', async () => {
    site.mode = 'wrong-host';
    const result = await loopbackProbe()(HEALTHY.domain);
    expect(result).toMatchObject({ ok: false, error: 'tls_hostname_mismatch' });
    expect(OTHER_HOST).not.toBe(HEALTHY.domain);
  });

  it('fails as tls_expired when the served certificate has expired', async () => {
    const issuedAt = new Date(Date.now() - (TEST_LEAF_VALIDITY_DAYS + 5) * 86_400_000);
    const stale = await startHttpsSite(new Map([[HEALTHY.domain, HEALTHY]]), {
      ca: await createTestCa(issuedAt),
    });
    try {
      const result = await loopbackProbe({ port: stale.port, ca: stale.caPem })(HEALTHY.domain);
      expect(result).toMatchObject({ ok: false, http_status: null, error: 'tls_expired' });
      expect(stale.requests).toHaveLength(0);
    } finally {
      await stale.close();
    }
  });

  it('fails as refused when nothing listens on the port', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await loopbackProbe({ port })(HEALTHY.domain);
    expect(result).toMatchObject({ ok: false, http_status: null, error: 'refused' });
  });
});

describe('createProbe never rejects', () => {
  it('reports a connector that throws as a network failure', async () => {
    const probe = loopbackProbe({
      connect: () => {
        throw new Error('connector bug');
      },
    });
    expect(await probe(HEALTHY.domain)).toMatchObject({ ok: false, http_status: null, error: 'network' });
    expect(site.requests).toHaveLength(0);
  });
});

describe('createProbe time budget', () => {
  it('ends a hanging site at the budget with timeout', async () => {
    const started = performance.now();
    const result = await loopbackProbe({ timeoutMs: SHORT_BUDGET_MS })(frozenOrigin.domain);
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ ok: false, http_status: null, error: 'timeout' });
    expect(result.ms).toBeGreaterThanOrEqual(SHORT_BUDGET_MS - 1);
    expect(result.ms).toBeLessThan(SHORT_BUDGET_MS + LATE_MARGIN_MS);
    expect(elapsed).toBeLessThan(SHORT_BUDGET_MS + LATE_MARGIN_MS);
    expect(recordedRequests()).toEqual([`HEAD ${frozenOrigin.domain}:${site.port} /`]);
  });

  it('defaults to a 5 s budget', async () => {
    expect(PROBE_TIMEOUT_MS).toBe(5_000);
    const result = await loopbackProbe()(frozenOrigin.domain);
    expect(result).toMatchObject({ ok: false, error: 'timeout' });
    expect(result.ms).toBeGreaterThanOrEqual(PROBE_TIMEOUT_MS - 1);
    expect(result.ms).toBeLessThan(PROBE_TIMEOUT_MS + LATE_MARGIN_MS);
  }, 10_000);

  it('counts resolution in the budget', async () => {
    const never = new Promise<never>(() => {});
    const result = await loopbackProbe({ resolve: () => never, timeoutMs: SHORT_BUDGET_MS })(HEALTHY.domain);
    expect(result).toMatchObject({ ok: false, http_status: null, error: 'timeout' });
    expect(result.ms).toBeLessThan(SHORT_BUDGET_MS + LATE_MARGIN_MS);
    expect(site.requests).toHaveLength(0);
  });

  it('reports ms from the injected clock', async () => {
    let tick = 1_000;
    const result = await loopbackProbe({ now: () => (tick += 7) })(HEALTHY.domain);
    expect(result).toEqual({ ok: true, http_status: 200, ms: 7, error: null });
  });
});

describe('createProbe resolution outcomes', () => {
  it.each([
    [
      'a resolver failure',
      () => Promise.resolve(fail({ code: 'servfail', source: 'doh', detail: 'SERVFAIL' })),
      'dns_failed',
    ],
    ['a resolver that throws', () => Promise.reject(new Error('bug')), 'dns_failed'],
    ['no addresses', () => Promise.resolve(succeed([])), 'no_address'],
  ] as const)('%s → %s, no request made', async (_name, resolve, error) => {
    const result = await loopbackProbe({ resolve })(HEALTHY.domain);
    expect(result).toMatchObject({ ok: false, http_status: null, error });
    expect(site.requests).toHaveLength(0);
  });
});
