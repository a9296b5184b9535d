/**
 * What every live probe (Node's pinned one, the edge's fetch one) must report against the world's
 * HTTPS site, as one suite each probe's test file runs with its own factory: each site mode, TLS
 * trust, a closed port, the time budget and the resolver outcomes that end a probe early.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { probeVerdictSchema } from '../../../../src/checks/cert/result.ts';
import { fail, type SourceResult, succeed } from '../../../../src/sources/failure.ts';
import { PROBE_TIMEOUT_MS, type Probe } from '../../../../src/sources/probe/probe.ts';
import { type HttpsSite, OTHER_HOST, startHttpsSite } from '../../../world/https-site.ts';
import type { Scenario } from '../../../world/scenario.ts';
import flakyEdge from '../../../world/scenarios/flaky-edge.net.ts';
import frozenOrigin from '../../../world/scenarios/frozen-origin.net.ts';
import legacyAppliance from '../../../world/scenarios/legacy-appliance.com.ts';
import movedBrand from '../../../world/scenarios/moved-brand.org.ts';
import originOutage from '../../../world/scenarios/origin-outage.com.ts';
import parkedAlias from '../../../world/scenarios/parked-alias.com.ts';
import pickyFirewall from '../../../world/scenarios/picky-firewall.net.ts';
import { createTestCa, TEST_LEAF_VALIDITY_DAYS } from '../../../world/test-ca.ts';
import { freePort } from '../../../support/free-port.ts';

export const HEALTHY: Scenario = {
  domain: 'corner-bistro.com',
  about: 'A site that answers 200.',
  https: { mode: 'ok' },
};

/** Short budget for the hang cases, in milliseconds, and how late a probe may end past it. */
const SHORT_BUDGET_MS = 400;
const LATE_MARGIN_MS = 250;

/** Domain → the verdict (without `ms`) → the methods the site must have seen, in order. */
const SITE_MODE_CASES = [
  [HEALTHY.domain, { ok: true, http_status: 200, error: null }, ['HEAD']],
  [originOutage.domain, { ok: false, http_status: 500, error: 'http_error' }, ['HEAD']],
  [flakyEdge.domain, { ok: false, http_status: null, error: 'reset' }, ['HEAD', 'GET']],
  [parkedAlias.domain, { ok: false, http_status: null, error: 'tls_hostname_mismatch' }, []],
  [movedBrand.domain, { ok: true, http_status: 301, error: null }, ['HEAD']],
  [legacyAppliance.domain, { ok: true, http_status: 200, error: null }, ['HEAD', 'GET']],
  [pickyFirewall.domain, { ok: true, http_status: 200, error: null }, ['HEAD', 'GET']],
] as const;

/**
 * Starts the world's site for the scenarios above around the file's tests (fresh records and no
 * mode override before each); the getter reads it inside a test.
 */
export function useProbeSite(): () => HttpsSite {
  let site: HttpsSite | undefined;
  beforeAll(async () => {
    const scenarios = [
      HEALTHY,
      originOutage,
      frozenOrigin,
      flakyEdge,
      parkedAlias,
      movedBrand,
      legacyAppliance,
      pickyFirewall,
    ];
    site = await startHttpsSite(new Map(scenarios.map((scenario) => [scenario.domain, scenario])));
  });
  afterAll(() => site?.close());
  beforeEach(() => {
    if (!site) return;
    site.mode = null;
    site.requests.length = 0;
    site.servernames.length = 0;
  });
  return () => {
    if (!site) throw new Error('the probe site is not running');
    return site;
  };
}

/** Every request the site saw since the last reset, as `METHOD host path`. */
export function recordedRequests(site: HttpsSite): string[] {
  return site.requests.map((request) => `${request.method} ${request.headers.host} ${request.url.pathname}`);
}

/** How the suite aims a probe: at `port` on loopback, trusting `ca` only (undefined: the default store). */
export interface ProbeSetup {
  port: number;
  ca: string | undefined;
  resolve: (name: string) => Promise<SourceResult<string[]>>;
  timeoutMs?: number;
  now?: () => number;
}

/** Registers the shared suite for the probe `makeProbe` builds (loopback must be allowed). */
export function liveProbeContract(
  name: string,
  site: () => HttpsSite,
  makeProbe: (setup: ProbeSetup) => Probe,
): void {
  const loopbackProbe = (overrides: Partial<ProbeSetup> = {}) =>
    makeProbe({
      port: site().port,
      ca: site().caPem,
      resolve: async () => succeed(['127.0.0.1']),
      ...overrides,
    });

  describe(`${name} against each site mode`, () => {
    it.each(SITE_MODE_CASES)('%s → %j after %j', async (domain, expected, methods) => {
      const result = await loopbackProbe()(domain);
      expect(probeVerdictSchema.parse(result)).toEqual({ ...expected, ms: expect.any(Number) });
      expect(result.ms).toBeGreaterThanOrEqual(0);
      expect(result.ms).toBeLessThan(PROBE_TIMEOUT_MS);
      const { port } = site();
      expect(recordedRequests(site())).toEqual(methods.map((method) => `${method} ${domain}:${port} /`));
    });

    it('does not follow a redirect: one request, none to the Location host', async () => {
      await loopbackProbe()(movedBrand.domain);
      expect(site().requests).toHaveLength(1);
      expect(site().servernames).toEqual([movedBrand.domain]);
    });

    it('fails as tls_untrusted when the issuing CA is not trusted', async () => {
      const result = await loopbackProbe({ ca: undefined })(HEALTHY.domain);
      expect(result).toMatchObject({ ok: false, http_status: null, error: 'tls_untrusted' });
      expect(site().requests).toHaveLength(0);
    });

    it('fails as tls_hostname_mismatch whenever the site is switched to another name’s certificate', async () => {
      site().mode = 'wrong-host';
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
      const result = await loopbackProbe({ port: await freePort() })(HEALTHY.domain);
      expect(result).toMatchObject({ ok: false, http_status: null, error: 'refused' });
    });
  });

  describe(`${name} time budget`, () => {
    it('ends a hanging site at the budget with timeout', async () => {
      const started = performance.now();
      const result = await loopbackProbe({ timeoutMs: SHORT_BUDGET_MS })(frozenOrigin.domain);
      const elapsed = performance.now() - started;
      expect(result).toMatchObject({ ok: false, http_status: null, error: 'timeout' });
      expect(result.ms).toBeGreaterThanOrEqual(SHORT_BUDGET_MS - 1);
      expect(result.ms).toBeLessThan(SHORT_BUDGET_MS + LATE_MARGIN_MS);
      expect(elapsed).toBeLessThan(SHORT_BUDGET_MS + LATE_MARGIN_MS);
      expect(recordedRequests(site())).toEqual([`HEAD ${frozenOrigin.domain}:${site().port} /`]);
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
      const result = await loopbackProbe({ resolve: () => never, timeoutMs: SHORT_BUDGET_MS })(
        HEALTHY.domain,
      );
      expect(result).toMatchObject({ ok: false, http_status: null, error: 'timeout' });
      expect(result.ms).toBeLessThan(SHORT_BUDGET_MS + LATE_MARGIN_MS);
      expect(site().requests).toHaveLength(0);
    });

    it('reports ms from the injected clock', async () => {
      let tick = 1_000;
      // The served chain (Node only) is checked by the runtime's own tests.
      const { chain: _chain, ...verdict } = await loopbackProbe({ now: () => (tick += 7) })(HEALTHY.domain);
      expect(verdict).toEqual({ ok: true, http_status: 200, ms: 7, error: null });
    });
  });

  describe(`${name} resolution outcomes`, () => {
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
      expect(site().requests).toHaveLength(0);
    });
  });
}
