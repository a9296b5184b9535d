import dnsPacket from 'dns-packet';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordsOf, txtOf } from '../../../../src/sources/doh/answer.ts';
import { createDohCache } from '../../../../src/sources/doh/client.ts';
import type { Scenario } from '../../../world/scenario.ts';
import { type DnsWorld, startDnsWorld } from './world.ts';

/** Names only these tests need: a multi-hop alias chain, split TXT strings, a short negative TTL. */
const cdnChain: Scenario = {
  domain: 'cdn-chain.com',
  about: 'Alias chain www → shop → edge, TXT split across character-strings, short TTLs.',
  dns: {
    ttlSeconds: 60,
    negativeTtlSeconds: 30,
    records: {
      'cdn-chain.com': {
        A: ['192.0.2.44'],
        TXT: [
          ['v=spf1 ip4:192.0.2.0/24 inc', 'lude:_spf.google.com -all'],
          'apple-domain-verification=Gk2pVx0cQr',
        ],
      },
      'www.cdn-chain.com': { CNAME: 'shop.cdn-chain.com' },
      'shop.cdn-chain.com': { CNAME: 'edge.cdn-chain.com' },
      'edge.cdn-chain.com': { A: ['192.0.2.45', '192.0.2.46'], AAAA: ['2001:db8::45'] },
      'gone.cdn-chain.com': { CNAME: 'retired-edge.cdn-chain.com' },
    },
  },
};

let world: DnsWorld;
beforeAll(async () => {
  world = await startDnsWorld(cdnChain);
});
afterAll(() => world.close());
afterEach(() => {
  world.primary.mode = null;
  world.fallback.mode = null;
});

const ok = <T>(result: { ok: true; value: T } | { ok: false; failure: unknown }): T => {
  if (!result.ok) throw new Error(`expected data, got ${JSON.stringify(result.failure)}`);
  return result.value;
};

describe('DoH client: record types', () => {
  it('decodes A, NS, MX, CAA, DS and DNSKEY with lower-case names and no trailing dot', async () => {
    const client = world.client();
    const at = async <T extends 'A' | 'NS' | 'MX' | 'CAA' | 'DS' | 'DNSKEY'>(type: T) => {
      const answer = ok(await client.query('Healthy-Shop.COM.', type));
      expect(answer.name).toBe('healthy-shop.com');
      return recordsOf(answer, type);
    };
    expect((await at('A')).map((r) => r.address)).toEqual(['127.0.0.1']);
    expect((await at('NS')).map((r) => r.host)).toEqual(['ns1.healthy-shop.com', 'ns2.healthy-shop.com']);
    expect((await at('MX'))[0]).toEqual({ type: 'MX', priority: 1, host: 'aspmx.l.google.com' });
    expect(await at('CAA')).toEqual([
      { type: 'CAA', flags: 0, tag: 'issue', value: 'letsencrypt.org' },
      { type: 'CAA', flags: 0, tag: 'issuewild', value: ';' },
      { type: 'CAA', flags: 0, tag: 'iodef', value: 'mailto:security@healthy-shop.com' },
    ]);
    const [ds] = await at('DS');
    expect(ds).toMatchObject({ keyTag: 2371, algorithm: 13, digestType: 2 });
    expect(ds?.digest).toMatch(/^c988ec42[0-9a-f]{56}$/);
    expect((await at('DNSKEY')).map((k) => k.flags)).toEqual([257, 256]);
  });

  it('decodes AAAA and joins TXT character-strings without a separator (RFC 7208 §3.3)', async () => {
    const client = world.client();
    const txt = ok(await client.query('cdn-chain.com', 'TXT'));
    expect(txtOf(txt)).toEqual([
      'v=spf1 ip4:192.0.2.0/24 include:_spf.google.com -all',
      'apple-domain-verification=Gk2pVx0cQr',
    ]);
    const aaaa = ok(await client.query('edge.cdn-chain.com', 'AAAA'));
    expect(recordsOf(aaaa, 'AAAA').map((r) => r.address)).toEqual(['2001:db8::45']);
  });

  it('follows a CNAME chain inside the answer by owner name', async () => {
    const answer = ok(await world.client().query('www.cdn-chain.com', 'A'));
    expect(answer.cnames).toEqual(['shop.cdn-chain.com', 'edge.cdn-chain.com']);
    expect(recordsOf(answer, 'A').map((r) => r.address)).toEqual(['192.0.2.45', '192.0.2.46']);
    const alias = ok(await world.client().query('www.cdn-chain.com', 'CNAME'));
    expect(alias.cnames).toEqual([]);
    expect(recordsOf(alias, 'CNAME')).toEqual([{ type: 'CNAME', host: 'shop.cdn-chain.com' }]);
  });
});

describe('DoH client: RCODEs and flags', () => {
  it('tells NXDOMAIN from NODATA, both as data with the SOA negative TTL', async () => {
    const client = world.client();
    const nxdomain = ok(await client.query('nope.cdn-chain.com', 'A'));
    expect(nxdomain).toMatchObject({ rcode: 'NXDOMAIN', records: [], ttlSeconds: 30 });
    const nodata = ok(await client.query('cdn-chain.com', 'MX'));
    expect(nodata).toMatchObject({ rcode: 'NOERROR', records: [], ttlSeconds: 30 });
    const dangling = ok(await client.query('gone.cdn-chain.com', 'A'));
    expect(dangling).toMatchObject({
      rcode: 'NXDOMAIN',
      cnames: ['retired-edge.cdn-chain.com'],
      records: [],
    });
  });

  it('reports SERVFAIL as the failure servfail after trying the fallback', async () => {
    const result = await world.client().query('lame-delegation.net', 'A');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.failure).toMatchObject({ code: 'servfail', source: 'doh' });
    expect(world.fallback.queries.some((q) => q.name === 'lame-delegation.net')).toBe(true);
  });

  it('reads the AD bit: set for a signed zone, clear for an unsigned one', async () => {
    const client = world.client();
    expect(ok(await client.query('healthy-shop.com', 'A')).ad).toBe(true);
    expect(ok(await client.query('dmarc-monitor.net', 'A')).ad).toBe(false);
  });

  it('answers a bogus zone only with the CD bit, and then without AD', async () => {
    const client = world.client();
    const checked = await client.query('dnssec-broken.net', 'A');
    expect(checked.ok ? 'data' : checked.failure.code).toBe('servfail');
    const unchecked = ok(await client.query('dnssec-broken.net', 'A', { cd: true }));
    expect(unchecked).toMatchObject({ ad: false, records: [{ type: 'A', address: '192.0.2.80' }] });
  });

  it('sends RFC 8484 GET: base64url message, id 0, RD, DO, CD when asked, Accept dns-message', async () => {
    const before = world.primary.requests.length;
    await world.client().query('cdn-chain.com', 'TXT', { cd: true });
    const request = world.primary.requests[before];
    expect(request?.method).toBe('GET');
    expect(request?.headers.accept).toBe('application/dns-message');
    const encoded = request?.url.searchParams.get('dns') ?? '';
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    const message = dnsPacket.decode(Buffer.from(encoded, 'base64url'));
    expect(message).toMatchObject({
      id: 0,
      flag_rd: true,
      flag_cd: true,
      questions: [{ name: 'cdn-chain.com', type: 'TXT' }],
    });
    const opt = message.additionals?.find((record) => record.type === 'OPT');
    expect(opt && 'flag_do' in opt ? opt.flag_do : false).toBe(true);
  });

  it('the fake also answers RFC 8484 POST', async () => {
    const body = dnsPacket.encode({
      type: 'query',
      id: 0,
      questions: [{ type: 'A', name: 'edge.cdn-chain.com' }],
    });
    const response = await fetch(world.primary.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/dns-message', accept: 'application/dns-message' },
      body,
    });
    expect(response.headers.get('content-type')).toBe('application/dns-message');
    const message = dnsPacket.decode(Buffer.from(await response.arrayBuffer()));
    expect(message.answers?.map((a) => ('data' in a ? a.data : null))).toEqual(['192.0.2.45', '192.0.2.46']);
  });
});

describe('DoH client: fallback', () => {
  it.each([
    ['http_500', 'http_status'],
    ['garbage', 'malformed'],
    ['wrong_content_type', 'bad_content_type'],
    ['hang', 'timeout'],
    ['servfail', 'servfail'],
    ['refused', 'refused'],
  ] as const)('retries once on the fallback when the primary answers %s', async (mode, code) => {
    world.primary.mode = mode;
    const client = world.client({ timeoutMs: 300 });
    const answer = ok(await client.query('healthy-shop.com', 'A'));
    expect(answer).toMatchObject({ resolver: world.fallback.endpoint.href, fellBack: true });
    expect(recordsOf(answer, 'A')).toHaveLength(1);

    world.fallback.mode = mode;
    const failed = await world.client({ timeoutMs: 300 }).query('healthy-shop.com', 'A');
    expect(failed.ok ? 'data' : failed.failure.code).toBe(code);
  });

  it('does not touch the fallback when the primary answers', async () => {
    const before = world.fallback.requests.length;
    const answer = ok(await world.client().query('spf-chain.org', 'TXT'));
    expect(answer).toMatchObject({ resolver: world.primary.endpoint.href, fellBack: false });
    expect(world.fallback.requests.length).toBe(before);
  });
});

describe('DoH client: cache', () => {
  it('caches by the smallest TTL and refetches after it', async () => {
    let clock = 1_000_000;
    const client = world.client({ cache: createDohCache({ now: () => clock }) });
    const count = () =>
      world.primary.queries.filter((q) => q.name === 'edge.cdn-chain.com' && q.type === 'A').length;
    const before = count();
    expect(ok(await client.query('edge.cdn-chain.com', 'A')).cached).toBe(false);
    clock += 59_000;
    expect(ok(await client.query('edge.cdn-chain.com', 'A'))).toMatchObject({ cached: true, ms: 0 });
    expect(count()).toBe(before + 1);
    clock += 2_000;
    expect(ok(await client.query('edge.cdn-chain.com', 'A')).cached).toBe(false);
    expect(count()).toBe(before + 2);
  });

  it('caps the cache lifetime at 5 minutes whatever the TTL', async () => {
    let clock = 0;
    const client = world.client({ cache: createDohCache({ now: () => clock }) });
    expect(ok(await client.query('dmarc-monitor.net', 'MX')).ttlSeconds).toBe(3600);
    clock += 299_000;
    expect(ok(await client.query('dmarc-monitor.net', 'MX')).cached).toBe(true);
    clock += 2_000;
    expect(ok(await client.query('dmarc-monitor.net', 'MX')).cached).toBe(false);
  });

  it('caches NXDOMAIN for the SOA minimum', async () => {
    let clock = 0;
    const client = world.client({ cache: createDohCache({ now: () => clock }) });
    await client.query('missing.cdn-chain.com', 'TXT');
    clock += 29_000;
    expect(ok(await client.query('missing.cdn-chain.com', 'TXT')).cached).toBe(true);
    clock += 2_000;
    expect(ok(await client.query('missing.cdn-chain.com', 'TXT')).cached).toBe(false);
  });

  it('coalesces 50 concurrent identical queries into one request at the resolver', async () => {
    const client = world.client();
    const before = world.primary.requests.length;
    const results = await Promise.all(
      Array.from({ length: 50 }, () => client.query('www.cdn-chain.com', 'AAAA')),
    );
    expect(world.primary.requests.length - before).toBe(1);
    expect(results.map((result) => ok(result).records)).toEqual(
      Array.from({ length: 50 }, () => [{ type: 'AAAA', address: '2001:db8::45' }]),
    );
    expect(results.filter((result) => ok(result).cached)).toHaveLength(49);
  });

  it('never caches a failure', async () => {
    world.primary.mode = 'http_500';
    world.fallback.mode = 'http_500';
    const client = world.client();
    expect((await client.query('shop.cdn-chain.com', 'A')).ok).toBe(false);
    world.primary.mode = null;
    world.fallback.mode = null;
    expect(ok(await client.query('shop.cdn-chain.com', 'A')).cached).toBe(false);
  });
});
