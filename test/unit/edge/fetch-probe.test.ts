/**
 * The edge probe through a real fetch (Node's, name pinned to loopback) against the world's HTTPS
 * site: each site mode, TLS trust, the budget and resolution outcomes. SSRF refusals use a fetch
 * that records every call and never opens a socket.
 */
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { liveProbeSchema } from '../../../src/checks/cert/result.ts';
import { createFetchProbe, type FetchProbeDeps } from '../../../src/edge/fetch-probe.ts';
import type { FetchLike } from '../../../src/sources/bounded-fetch.ts';
import { fail, succeed } from '../../../src/sources/failure.ts';
import { PROBE_TIMEOUT_MS } from '../../../src/sources/probe/probe.ts';
import { type HttpsSite, startHttpsSite } from '../../world/https-site.ts';
import type { Scenario } from '../../world/scenario.ts';
import flakyEdge from '../../world/scenarios/flaky-edge.net.ts';
import frozenOrigin from '../../world/scenarios/frozen-origin.net.ts';
import legacyAppliance from '../../world/scenarios/legacy-appliance.com.ts';
import movedBrand from '../../world/scenarios/moved-brand.org.ts';
import originOutage from '../../world/scenarios/origin-outage.com.ts';
import parkedAlias from '../../world/scenarios/parked-alias.com.ts';
import pickyFirewall from '../../world/scenarios/picky-firewall.net.ts';
import { createTestCa, TEST_LEAF_VALIDITY_DAYS } from '../../world/test-ca.ts';
import { ADDRESS_CASES, ALLOWED_ADDRESSES, REFUSED_ADDRESSES } from '../sources/probe/address-cases.ts';
import { type LoopbackFetch, loopbackFetch } from './loopback-fetch.ts';
import { startTlsSite } from './tls-site.ts';

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
const PUBLIC_ADDRESS = '93.184.215.14';

let site: HttpsSite;
const fetches: LoopbackFetch[] = [];

beforeAll(async () => {
  site = await startHttpsSite(new Map(SCENARIOS.map((scenario) => [scenario.domain, scenario])));
});
afterAll(() => site.close());
beforeEach(() => {
  site.mode = null;
  site.requests.length = 0;
  site.servernames.length = 0;
});
afterEach(async () => {
  await Promise.all(fetches.splice(0).map((opened) => opened.close()));
});

/** A fresh real fetch (no pooled connection from an earlier test), closed after the test. */
function realFetch(ca: string | undefined): LoopbackFetch {
  const opened = loopbackFetch(ca);
  fetches.push(opened);
  return opened;
}

/** The edge probe aimed at the site the way the test world runs it: loopback allowed, test CA trusted. */
function loopbackProbe(overrides: Partial<FetchProbeDeps> = {}) {
  return createFetchProbe({
    resolve: async () => succeed(['127.0.0.1']),
    port: site.port,
    allowPrivate: true,
    fetch: realFetch(site.caPem).fetch,
    ...overrides,
  });
}

/** Every request the site saw since the last reset, as `METHOD host path`. */
function recordedRequests() {
  return site.requests.map((request) => `${request.method} ${request.headers.host} ${request.url.pathname}`);
}

/** A port on loopback that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A fetch that records each call and fails it like a refused connection, without any socket. */
function recordingFetch(): { fetch: FetchLike; calls: { url: string; method: string }[] } {
  const calls: { url: string; method: string }[] = [];
  const fetch: FetchLike = async (input, init) => {
    calls.push({ url: String(input), method: init?.method ?? 'GET' });
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    throw new TypeError('fetch failed', { cause: refused });
  };
  return { fetch, calls };
}

describe('createFetchProbe against each site mode', () => {
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

  it('does not follow a redirect: one request, no handshake with the Location host', async () => {
    const opened = realFetch(site.caPem);
    await loopbackProbe({ fetch: opened.fetch })(movedBrand.domain);
    expect(site.requests).toHaveLength(1);
    expect(site.servernames).toEqual([movedBrand.domain]);
    expect(opened.lookups).toEqual([movedBrand.domain]);
  });

  it('passes a 404: the site answered', async () => {
    const missing = await startTlsSite([HEALTHY.domain], (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found\n');
    });
    try {
      const probe = loopbackProbe({ port: missing.port, fetch: realFetch(missing.caPem).fetch });
      expect(await probe(HEALTHY.domain)).toMatchObject({ ok: true, http_status: 404, error: null });
      expect(missing.requests.map((request) => request.method)).toEqual(['HEAD']);
    } finally {
      await missing.close();
    }
  });

  it('sends the domain as SNI and in Host, and asks for / with HEAD', async () => {
    const opened = realFetch(site.caPem);
    expect(await loopbackProbe({ fetch: opened.fetch })(HEALTHY.domain)).toMatchObject({ ok: true });
    expect(site.servernames).toEqual([HEALTHY.domain]);
    expect(site.requests[0]?.headers.host).toBe(`${HEALTHY.domain}:${site.port}`);
    expect(site.requests[0]?.headers['user-agent']).toMatch(/^website-checks\//);
  });

  it('fails as tls_untrusted when the issuing CA is not trusted', async () => {
    const result = await loopbackProbe({ fetch: realFetch(undefined).fetch })(HEALTHY.domain);
    expect(result).toMatchObject({ ok: false, http_status: null, error: 'tls_untrusted' });
    expect(site.requests).toHaveLength(0);
  });

  it('fails as tls_expired when the served certificate has expired', async () => {
    const issuedAt = new Date(Date.now() - (TEST_LEAF_VALIDITY_DAYS + 5) * 86_400_000);
    const stale = await startHttpsSite(new Map([[HEALTHY.domain, HEALTHY]]), {
      ca: await createTestCa(issuedAt),
    });
    try {
      const probe = loopbackProbe({ port: stale.port, fetch: realFetch(stale.caPem).fetch });
      expect(await probe(HEALTHY.domain)).toMatchObject({
        ok: false,
        http_status: null,
        error: 'tls_expired',
      });
      expect(stale.requests).toHaveLength(0);
    } finally {
      await stale.close();
    }
  });

  it('fails as refused when nothing listens on the port', async () => {
    const result = await loopbackProbe({ port: await closedPort() })(HEALTHY.domain);
    expect(result).toMatchObject({ ok: false, http_status: null, error: 'refused' });
  });
});

describe('createFetchProbe time budget', () => {
  it('ends a hanging site at the budget with timeout', async () => {
    const started = performance.now();
    const result = await loopbackProbe({ timeoutMs: SHORT_BUDGET_MS })(frozenOrigin.domain);
    const elapsed = performance.now() - started;
    expect(result).toMatchObject({ ok: false, http_status: null, error: 'timeout' });
    expect(result.ms).toBeGreaterThanOrEqual(SHORT_BUDGET_MS - 1);
    expect(elapsed).toBeLessThan(SHORT_BUDGET_MS + LATE_MARGIN_MS);
    expect(recordedRequests()).toEqual([`HEAD ${frozenOrigin.domain}:${site.port} /`]);
  });

  it('defaults to the Node probe’s 5 s budget', async () => {
    const result = await loopbackProbe()(frozenOrigin.domain);
    expect(result).toMatchObject({ ok: false, error: 'timeout' });
    expect(result.ms).toBeGreaterThanOrEqual(PROBE_TIMEOUT_MS - 1);
    expect(result.ms).toBeLessThan(PROBE_TIMEOUT_MS + LATE_MARGIN_MS);
  }, 10_000);

  it('counts resolution in the budget, and fetches nothing after it', async () => {
    const { fetch, calls } = recordingFetch();
    const never = new Promise<never>(() => {});
    const probe = loopbackProbe({ resolve: () => never, fetch, timeoutMs: SHORT_BUDGET_MS });
    const result = await probe(HEALTHY.domain);
    expect(result).toMatchObject({ ok: false, http_status: null, error: 'timeout' });
    expect(result.ms).toBeLessThan(SHORT_BUDGET_MS + LATE_MARGIN_MS);
    expect(calls).toEqual([]);
  });

  it('reports ms from the injected clock', async () => {
    let tick = 1_000;
    const result = await loopbackProbe({ now: () => (tick += 7) })(HEALTHY.domain);
    expect(result).toEqual({ ok: true, http_status: 200, ms: 7, error: null });
  });
});

describe('createFetchProbe resolution outcomes', () => {
  it.each([
    [
      'a resolver failure',
      () => Promise.resolve(fail({ code: 'servfail', source: 'doh', detail: 'SERVFAIL' })),
      'dns_failed',
    ],
    ['a resolver that throws', () => Promise.reject(new Error('bug')), 'dns_failed'],
    ['no addresses', () => Promise.resolve(succeed([])), 'no_address'],
  ] as const)('%s → %s, nothing fetched', async (_name, resolve, error) => {
    const { fetch, calls } = recordingFetch();
    const result = await loopbackProbe({ resolve, fetch })(HEALTHY.domain);
    expect(result).toMatchObject({ ok: false, http_status: null, error });
    expect(calls).toEqual([]);
  });
});

describe('createFetchProbe never rejects', () => {
  it('reports a fetch that throws synchronously as a network failure', async () => {
    const fetch: FetchLike = () => {
      throw new Error('fetch bug');
    };
    expect(await loopbackProbe({ fetch })(HEALTHY.domain)).toMatchObject({
      ok: false,
      http_status: null,
      error: 'network',
    });
  });
});

describe('createFetchProbe SSRF refusal, before any fetch', () => {
  function probeResolvingTo(addresses: readonly string[], allowPrivate = false) {
    const { fetch, calls } = recordingFetch();
    const resolved: string[] = [];
    const probe = createFetchProbe({
      resolve: async (name) => {
        resolved.push(name);
        return succeed([...addresses]);
      },
      port: 443,
      allowPrivate,
      fetch,
    });
    return { probe, calls, resolved };
  }

  it.each(REFUSED_ADDRESSES)(
    'refuses a name resolving to %j, alone or beside a public address',
    async (refused) => {
      for (const answer of [[refused], [refused, PUBLIC_ADDRESS], [PUBLIC_ADDRESS, refused]]) {
        const { probe, calls } = probeResolvingTo(answer);
        expect(await probe('intranet-portal.com')).toMatchObject({
          ok: false,
          http_status: null,
          error: 'blocked_address',
        });
        expect(calls).toEqual([]);
      }
    },
  );

  it(`fetches https://<domain>/ when every address is public (${ALLOWED_ADDRESSES.length} addresses)`, async () => {
    const { probe, calls, resolved } = probeResolvingTo(ALLOWED_ADDRESSES);
    expect(await probe('intranet-portal.com')).toMatchObject({ ok: false, error: 'refused' });
    expect(resolved).toEqual(['intranet-portal.com']);
    expect(calls).toEqual([{ url: 'https://intranet-portal.com/', method: 'HEAD' }]);
  });

  it('with PROBE_ALLOW_PRIVATE, fetches a loopback or private answer (the test world needs it)', async () => {
    const { probe, calls } = probeResolvingTo(['127.0.0.1', '10.0.0.5', '::1'], true);
    expect(await probe('intranet-portal.com')).toMatchObject({ ok: false, error: 'refused' });
    expect(calls).toHaveLength(1);
  });

  const metadata = ADDRESS_CASES.filter(([, range]) => range?.includes('cloud metadata')).map(
    ([address]) => address,
  );
  it.each([...metadata, '127.1', 'localhost'])(
    'with PROBE_ALLOW_PRIVATE, still refuses %j (cloud metadata, unparsable) beside loopback',
    async (address) => {
      const { probe, calls } = probeResolvingTo(['127.0.0.1', address], true);
      expect(await probe('intranet-portal.com')).toMatchObject({ ok: false, error: 'blocked_address' });
      expect(calls).toEqual([]);
    },
  );

  it.each(['intranet-portal.com@169.254.169.254', 'a.com/x', 'a.com:80', 'a.com#x', ''])(
    'refuses %j, which would not be the URL host as given, without resolving it',
    async (domain) => {
      const { probe, calls, resolved } = probeResolvingTo([PUBLIC_ADDRESS]);
      expect(await probe(domain)).toMatchObject({ ok: false, error: 'blocked_address' });
      expect(resolved).toEqual([]);
      expect(calls).toEqual([]);
    },
  );
});
