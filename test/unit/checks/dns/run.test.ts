import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dnsResultSchema } from '../../../../src/checks/dns/result.ts';
import { createDnsRunner } from '../../../../src/checks/dns/run.ts';
import { loadScenarios } from '../../../world/scenarios/index.ts';
import { type DnsWorld, startDnsWorld, validDomain } from '../../sources/doh/world.ts';

const NOW = new Date('2026-10-20T12:00:00.250Z');

let world: DnsWorld;
beforeAll(async () => {
  world = await startDnsWorld();
});
afterAll(() => world.close());
afterEach(() => {
  world.primary.mode = null;
  world.fallback.mode = null;
});

const run = (domain: string, client = world.client()) =>
  createDnsRunner({ doh: client, now: () => NOW })(validDomain(domain));
const resultOf = async (domain: string) => {
  const outcome = await run(domain);
  if (outcome.type !== 'result') throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  return dnsResultSchema.parse(outcome.result);
};
const codes = (result: { findings: { code: string }[] }) => result.findings.map((f) => f.code);

describe('dns runner over the world', () => {
  it('reports a healthy signed domain with no findings', async () => {
    const result = await resultOf('healthy-shop.com');
    expect(result).toMatchObject({
      domain: 'healthy-shop.com',
      checked_at: '2026-10-20T12:00:00Z',
      disclaimer: 'Results are data, not guarantees.',
      ns: ['ns1.healthy-shop.com', 'ns2.healthy-shop.com'],
      a: ['127.0.0.1'],
      aaaa: [],
      cname: null,
      spf: {
        record: 'v=spf1 include:_spf.google.com include:sendgrid.net -all',
        valid: true,
        lookups: 5,
        void_lookups: 0,
        all: '-all',
      },
      dmarc: { policy: 'reject', subdomain_policy: 'quarantine', found_at: '_dmarc.healthy-shop.com' },
      caa: { found_at: 'healthy-shop.com' },
      dnssec: { status: 'signed', ad: true, ds: true, dnskey: true },
      mta_sts: 'v=STSv1; id=20260301T000000',
      tls_rpt: 'v=TLSRPTv1; rua=mailto:tls-reports@healthy-shop.com',
    });
    expect(result.mx.map((mx) => mx.priority)).toEqual([1, 5, 5, 10, 10]);
    expect(result.caa.records).toHaveLength(3);
    expect(result.findings).toEqual([]);
    expect(result.sources).toEqual([
      { name: 'doh', url: world.primary.endpoint.href, ok: true, ms: expect.any(Number), cached: false },
    ]);
  });

  it('finds DMARC and CAA at the organizational domain for a subdomain, and no dns.no_ns', async () => {
    const result = await resultOf('blog.healthy-shop.com');
    expect(result.dmarc?.found_at).toBe('_dmarc.healthy-shop.com');
    expect(result.caa.found_at).toBe('healthy-shop.com');
    expect(result.dnssec.status).toBe('signed');
    // The subdomain itself publishes no MX and no SPF; both belong to the name, not the zone.
    expect(codes(result)).toEqual(['mx.missing', 'spf.missing']);
  });

  it('reports the CNAME of an alias and the addresses behind it', async () => {
    const result = await resultOf('www.healthy-shop.com');
    expect(result).toMatchObject({ cname: 'healthy-shop.com', a: ['127.0.0.1'] });
  });

  it('reports monitoring-only DMARC, softfail SPF, missing CAA and an unsigned zone', async () => {
    const result = await resultOf('dmarc-monitor.net');
    expect(codes(result)).toEqual([
      'spf.softfail_all',
      'dmarc.policy_none',
      'caa.missing',
      'dnssec.unsigned',
    ]);
    expect(result.dmarc?.rua).toEqual(['mailto:dmarc_agg@vali.email', 'mailto:reports@dmarc-monitor.net']);
    expect(result).toMatchObject({ mta_sts: null, tls_rpt: null, caa: { records: [], found_at: null } });
  });

  it('reports a bogus zone from the CD answers instead of failing', async () => {
    const result = await resultOf('dnssec-broken.net');
    expect(result.dnssec).toEqual({ status: 'bogus', ad: false, ds: true, dnskey: true });
    expect(result.a).toEqual(['192.0.2.80']);
    expect(codes(result)).toEqual(['caa.missing', 'dnssec.bogus']);
  });

  it('reports the SPF lookup limit through the runner', async () => {
    const result = await resultOf('spf-overflow.net');
    expect(result.spf).toMatchObject({ valid: false, lookups: 11 });
    expect(codes(result)).toContain('spf.too_many_lookups');
  });

  it('produces schema-valid results for every scenario with DNS data that resolves', async () => {
    const scenarios = [...(await loadScenarios()).values()].filter((s) => s.dns && !s.dns.failure);
    expect(scenarios.length).toBeGreaterThanOrEqual(8);
    for (const scenario of scenarios) {
      const outcome = await run(scenario.domain);
      expect(outcome.type, scenario.domain).toBe('result');
      if (outcome.type === 'result')
        expect(dnsResultSchema.safeParse(outcome.result).success, scenario.domain).toBe(true);
    }
  });
});

describe('dns runner: resolver failures are upstream failures, never missing records', () => {
  it('maps SERVFAIL that CD does not cure to upstream_failed doh servfail', async () => {
    const outcome = await run('lame-delegation.net');
    expect(outcome).toEqual({
      type: 'upstream_failed',
      upstreams: [{ name: 'doh', error: 'servfail', detail: expect.stringContaining('SERVFAIL') }],
    });
  });

  it('maps both resolvers answering 500 to upstream_failed doh http_status', async () => {
    const outcome = await run('resolver-outage.com');
    expect(outcome).toMatchObject({
      type: 'upstream_failed',
      upstreams: [{ name: 'doh', error: 'http_status' }],
    });
  });

  it('fails the whole check when both resolvers hang, rather than reporting no SPF', async () => {
    world.primary.mode = 'hang';
    world.fallback.mode = 'hang';
    const started = performance.now();
    const outcome = await run('healthy-shop.com', world.client({ timeoutMs: 200 }));
    expect(outcome).toMatchObject({
      type: 'upstream_failed',
      upstreams: [{ name: 'doh', error: 'timeout' }],
    });
    // Every query runs in parallel: two 200 ms attempts, not one pair per query.
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('names the fallback resolver in sources when the primary is down', async () => {
    world.primary.mode = 'http_500';
    const result = await resultOf('spf-chain.org');
    expect(result.sources).toEqual([
      { name: 'doh', url: world.fallback.endpoint.href, ok: true, ms: expect.any(Number), cached: false },
    ]);
    expect(result.spf?.lookups).toBe(10);
  });

  it('reports cached answers on a repeated run', async () => {
    const client = world.client();
    await run('spf-nine.net', client);
    const again = await run('spf-nine.net', client);
    expect(again.type === 'result' && again.result.sources).toEqual([
      { name: 'doh', url: world.primary.endpoint.href, ok: true, ms: 0, cached: true },
    ]);
  });
});
