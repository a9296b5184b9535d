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
  world.primary.delayMs = 0;
  world.fallback.delayMs = 0;
});

const run = (domain: string, client = world.client(), budgetMs?: number) =>
  createDnsRunner({ doh: client, now: () => NOW, budgetMs })(validDomain(domain));
const timed = async <T>(work: () => Promise<T>) => {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
};
/** What the world's records say, with a hedge and timeout no busy machine reaches (`sources` lists the primary alone). */
const resultOf = async (domain: string) => {
  const outcome = await run(domain, world.client({ hedgeMs: 20_000, timeoutMs: 25_000 }));
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
    expect('error' in result.mx ? [] : result.mx.map((mx) => mx.priority)).toEqual([1, 5, 5, 10, 10]);
    expect(result.caa).toMatchObject({ records: { length: 3 } });
    expect(result.findings).toEqual([]);
    expect(result.sources).toEqual([
      { name: 'doh', url: world.primary.endpoint.href, ok: true, ms: expect.any(Number), cached: false },
    ]);
  });

  it('finds DMARC and CAA at the organizational domain for a subdomain, and no dns.no_ns', async () => {
    const result = await resultOf('blog.healthy-shop.com');
    expect(result.dmarc).toMatchObject({ found_at: '_dmarc.healthy-shop.com' });
    expect(result.caa).toMatchObject({ found_at: 'healthy-shop.com' });
    expect(result.dnssec).toMatchObject({ status: 'signed' });
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
    expect(result.dmarc).toMatchObject({
      rua: ['mailto:dmarc_agg@vali.email', 'mailto:reports@dmarc-monitor.net'],
    });
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

describe('dns runner: failing resolvers are upstream failures, failing names are section errors', () => {
  it('reports a lame delegation (SERVFAIL at both resolvers, which answer the control query) section by section', async () => {
    const result = await resultOf('lame-delegation.net');
    const servfail = { error: { code: 'servfail', message: expect.stringContaining('SERVFAIL') } };
    expect(result).toMatchObject({ ns: servfail, a: servfail, mx: servfail, spf: servfail, caa: servfail });
    expect(result.findings).toEqual([
      expect.objectContaining({ code: 'caa.lookup_failed', severity: 'critical' }),
      expect.objectContaining({ code: 'dns.lookup_failed', severity: 'critical' }),
    ]);
  });

  it('keeps SPF, DMARC and MX when only the DS lookup times out (it used to fail the whole check)', async () => {
    const { value: result, ms } = await timed(async () => {
      const outcome = await run('ds-timeout.net', world.client({ timeoutMs: 300 }));
      if (outcome.type !== 'result') throw new Error(JSON.stringify(outcome));
      return dnsResultSchema.parse(outcome.result);
    });
    expect(result.dnssec).toEqual({ error: { code: 'timeout', message: expect.stringContaining('300 ms') } });
    expect(result.spf).toMatchObject({ valid: true, lookups: 4, all: '-all' });
    expect(result.dmarc).toMatchObject({ policy: 'quarantine' });
    expect(result.mx).toHaveLength(5);
    expect(codes(result)).toEqual(['caa.missing', 'dns.lookup_failed']);
    // Ended by its timeout, however long the DS lookup would hang (the test's 30 s).
    expect(ms).toBeLessThan(15_000);
  });

  it('reports a CAA lookup that fails at both resolvers as caa.lookup_failed, never caa.missing', async () => {
    const result = await resultOf('caa-servfail.com');
    expect(result.caa).toEqual({ error: { code: 'servfail', message: expect.stringContaining('CAA') } });
    expect(codes(result)).toEqual(['caa.lookup_failed', 'dnssec.unsigned']);
    expect(result.spf).toMatchObject({ valid: true });
  });

  it('fails the check when both resolvers answer REFUSED, naming the code', async () => {
    world.primary.mode = 'refused';
    world.fallback.mode = 'refused';
    expect(await run('healthy-shop.com')).toMatchObject({
      type: 'upstream_failed',
      upstreams: [{ name: 'doh', error: 'refused', detail: expect.stringContaining('REFUSED') }],
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
    const outcome = await run('healthy-shop.com', world.client({ timeoutMs: 1_000 }));
    expect(outcome).toMatchObject({
      type: 'upstream_failed',
      upstreams: [{ name: 'doh', error: 'timeout' }],
    });
    // Every query runs in parallel: two 1 s attempts, not a pair per query (over a dozen).
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('names both resolvers in sources when the primary is down: the primary not ok', async () => {
    world.primary.mode = 'http_500';
    const result = await resultOf('spf-chain.org');
    expect(result.sources).toEqual([
      { name: 'doh', url: world.primary.endpoint.href, ok: false, ms: expect.any(Number), cached: false },
      { name: 'doh', url: world.fallback.endpoint.href, ok: true, ms: expect.any(Number), cached: false },
    ]);
    expect(result.spf).toMatchObject({ lookups: 10 });
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

describe('dns runner: time bounds whatever the resolvers do', () => {
  it('costs only the hedge delay per lookup round when the primary hangs, for a 4-level SPF tree', async () => {
    world.primary.mode = 'hang';
    // A timeout no busy machine reaches: a round that waited for it instead of hedging would cost
    // 20 s, and five of them would outlast the test.
    const { value: outcome, ms } = await timed(() =>
      run('spf-deep.org', world.client({ hedgeMs: 300, timeoutMs: 20_000 }), 60_000),
    );
    if (outcome.type !== 'result') throw new Error(JSON.stringify(outcome));
    expect(outcome.result.spf).toMatchObject({ valid: true, lookups: 9, all: '-all' });
    expect(outcome.result.sources).toEqual([
      expect.objectContaining({ url: world.primary.endpoint.href, ok: false }),
      expect.objectContaining({ url: world.fallback.endpoint.href, ok: true }),
    ]);
    // Five rounds (TXT, then four include levels) at the 300 ms hedge delay; the timeout never.
    expect(ms).toBeLessThan(20_000);
  }, 120_000);

  it('fetches an SPF include tree level by level, the lookups of one depth in parallel', async () => {
    // Every answer held a while: the lookups of one depth all arrive before the first is answered.
    world.primary.delayMs = 500;
    const before = world.primary.events.length;
    const outcome = await run('spf-deep.org', world.client({ hedgeMs: 20_000, timeoutMs: 25_000 }));
    expect(outcome.type === 'result' && outcome.result.spf).toMatchObject({ lookups: 9, valid: true });
    // The include lookups grouped by how many include answers had come back when each was asked:
    // one group per depth, each asked only once the depth above was answered whole.
    const groups: number[] = [];
    let answered = 0;
    for (const { kind, name } of world.primary.events.slice(before)) {
      if (!name.startsWith('_l')) continue;
      if (kind === 'answer') answered += 1;
      else if (groups.reduce((sum, size) => sum + size, 0) === answered) groups.push(1);
      else groups[groups.length - 1]! += 1;
    }
    // spf-deep.org's tree: _l1a _l1b, then _l2a _l2b _l2c, _l3a _l3b, _l4a _l4b (one at a time: nine 1s).
    expect(groups).toEqual([2, 3, 2, 2]);
  });

  it('answers within the budget when both resolvers are slow: the resolvers count as down (502)', async () => {
    world.primary.mode = 'hang';
    world.fallback.delayMs = 2_500;
    const { value: outcome, ms } = await timed(() =>
      run('spf-deep.org', world.client({ timeoutMs: 5_000 }), 3_000),
    );
    expect(outcome).toMatchObject({
      type: 'upstream_failed',
      upstreams: [{ name: 'doh', error: 'timeout' }],
    });
    expect(ms).toBeGreaterThanOrEqual(2_900);
    // At the budget, not at the 5 s timeout of the slow resolver.
    expect(ms).toBeLessThan(5_000);
  });
});
