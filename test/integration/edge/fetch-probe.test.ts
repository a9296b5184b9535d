/**
 * The edge probe through a real fetch (Node's, every name resolved to loopback) against the world's
 * HTTPS site: the suite every probe passes, then what the edge does differently. SSRF refusals use
 * a fetch that records every call and never opens a socket.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createFetchProbe, type FetchProbeDeps } from '../../../src/edge/fetch-probe.ts';
import type { FetchLike } from '../../../src/sources/bounded-fetch.ts';
import { succeed } from '../../../src/sources/failure.ts';
import movedBrand from '../../world/scenarios/moved-brand.org.ts';
import {
  ADDRESS_CASES,
  ALLOWED_ADDRESSES,
  REFUSED_ADDRESSES,
} from '../../unit/sources/probe/address-cases.ts';
import { HEALTHY, liveProbeContract, useProbeSite } from '../sources/probe/live-probe-contract.ts';
import { type LoopbackFetch, loopbackFetch } from './loopback-fetch.ts';
import { startTlsSite } from './tls-site.ts';

const PUBLIC_ADDRESS = '93.184.215.14';

const site = useProbeSite();
const fetches: LoopbackFetch[] = [];
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
    port: site().port,
    allowPrivate: true,
    fetch: realFetch(site().caPem).fetch,
    ...overrides,
  });
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

liveProbeContract('createFetchProbe', site, ({ ca, ...setup }) =>
  createFetchProbe({ ...setup, allowPrivate: true, fetch: realFetch(ca).fetch }),
);

describe('createFetchProbe requests', () => {
  it('asks the platform for the domain: it resolves the name, sends it as SNI and in Host', async () => {
    const opened = realFetch(site().caPem);
    expect(await loopbackProbe({ fetch: opened.fetch })(HEALTHY.domain)).toMatchObject({ ok: true });
    expect(opened.lookups).toEqual([HEALTHY.domain]);
    expect(site().servernames).toEqual([HEALTHY.domain]);
    expect(site().requests[0]?.headers.host).toBe(`${HEALTHY.domain}:${site().port}`);
    expect(site().requests[0]?.headers['user-agent']).toMatch(/^website-checks\//);
  });

  it('never looks up the Location host of a redirect', async () => {
    const opened = realFetch(site().caPem);
    expect(await loopbackProbe({ fetch: opened.fetch })(movedBrand.domain)).toMatchObject({
      http_status: 301,
    });
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
