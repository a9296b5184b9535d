import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveAddresses } from '../../../../src/sources/doh/addresses.ts';
import { gatherDns } from '../../../../src/sources/doh/gather.ts';
import type { Scenario } from '../../../world/scenario.ts';
import { type DnsWorld, startDnsWorld, validDomain } from './world.ts';

/** A CAA set two levels up; the `.uk` levels of the climb answer SERVFAIL (see `ukOutage`). */
const deepShop: Scenario = {
  domain: 'deep-shop.co.uk',
  about: 'CAA only at the registrable domain; a store subdomain three labels down.',
  dns: {
    records: {
      'deep-shop.co.uk': { A: ['192.0.2.70'], CAA: [{ tag: 'issue', value: 'pki.goog' }] },
      'eu.store.deep-shop.co.uk': { CNAME: 'store-eu.deep-shop.co.uk' },
      'store-eu.deep-shop.co.uk': { A: ['192.0.2.71'], AAAA: ['2001:db8::71'] },
    },
  },
};

const plainShop: Scenario = {
  domain: 'plain-shop.co.uk',
  about: 'No CAA anywhere below the failing co.uk level.',
  dns: { records: { 'plain-shop.co.uk': { A: ['192.0.2.72'] } } },
};
const dmarcShop: Scenario = {
  domain: 'dmarc-shop.co.uk',
  about: 'A DMARC record at the registrable domain only, below the failing co.uk level.',
  dns: {
    records: {
      'dmarc-shop.co.uk': { A: ['192.0.2.73'] },
      'mail.dmarc-shop.co.uk': { A: ['192.0.2.74'] },
      '_dmarc.dmarc-shop.co.uk': { TXT: ['v=DMARC1; p=reject; rua=mailto:d@dmarc-shop.co.uk'] },
    },
  },
};
const ukOutage: Scenario = {
  domain: 'uk',
  about: 'Every name in .uk outside the scenarios above answers SERVFAIL, CD or not.',
  dns: { failure: 'servfail', records: {} },
};

let world: DnsWorld;
beforeAll(async () => {
  world = await startDnsWorld(deepShop, plainShop, dmarcShop, ukOutage);
});
afterAll(() => world.close());
afterEach(() => {
  world.primary.mode = null;
  world.fallback.mode = null;
});

describe('gatherDns', () => {
  it('asks every question in parallel, with _dmarc at the domain and along the DNS Tree Walk', async () => {
    const before = world.primary.queries.length;
    const gathered = await gatherDns(world.client(), validDomain('eu.store.deep-shop.co.uk'));
    expect(gathered.ok).toBe(true);
    const asked = world.primary.queries.slice(before).map((q) => `${q.name} ${q.type}`);
    expect(asked).toEqual(
      expect.arrayContaining([
        'eu.store.deep-shop.co.uk A',
        'eu.store.deep-shop.co.uk AAAA',
        'eu.store.deep-shop.co.uk CNAME',
        'eu.store.deep-shop.co.uk NS',
        'eu.store.deep-shop.co.uk MX',
        'eu.store.deep-shop.co.uk TXT',
        '_dmarc.eu.store.deep-shop.co.uk TXT',
        '_dmarc.store.deep-shop.co.uk TXT',
        '_dmarc.deep-shop.co.uk TXT',
        '_dmarc.co.uk TXT',
        '_dmarc.uk TXT',
        'eu.store.deep-shop.co.uk CAA',
        'store.deep-shop.co.uk CAA',
        'deep-shop.co.uk CAA',
        'co.uk CAA',
        'uk CAA',
        'deep-shop.co.uk DS',
        'deep-shop.co.uk DNSKEY',
        '_mta-sts.eu.store.deep-shop.co.uk TXT',
        '_smtp._tls.eu.store.deep-shop.co.uk TXT',
        '_acme-challenge.eu.store.deep-shop.co.uk TXT',
        '_validation-persist.eu.store.deep-shop.co.uk TXT',
      ]),
    );
    if (!gathered.ok) return;
    expect(gathered.value).toMatchObject({
      cname: { ok: true, value: 'store-eu.deep-shop.co.uk' },
      a: { ok: true, value: ['192.0.2.71'] },
      aaaa: { ok: true, value: ['2001:db8::71'] },
      caa: {
        ok: true,
        value: { found_at: 'deep-shop.co.uk', records: [{ flags: 0, tag: 'issue', value: 'pki.goog' }] },
      },
      // RFC 9989 §4.10: the Tree Walk reaches co.uk, which fails, with no DMARC record below it.
      dmarc: { ok: false, failure: { code: 'servfail' } },
      spf: { ok: true, value: { walk: null } },
    });
  });

  it('ignores failed CAA levels above the closest non-empty set (RFC 8659 §3)', async () => {
    const gathered = await gatherDns(world.client(), validDomain('eu.store.deep-shop.co.uk'));
    expect(gathered.ok && gathered.value.caa).toMatchObject({
      ok: true,
      value: { found_at: 'deep-shop.co.uk' },
    });
    expect(world.primary.queries.some((q) => q.name === 'co.uk' && q.type === 'CAA')).toBe(true);
  });

  it('fails the CAA section when a level below any non-empty set fails: no record may be presumed absent', async () => {
    const gathered = await gatherDns(world.client(), validDomain('plain-shop.co.uk'));
    if (!gathered.ok) throw new Error(`expected facts, got ${gathered.failure.code}`);
    expect(gathered.value.caa).toMatchObject({ ok: false, failure: { code: 'servfail' } });
    // The other sections are reported: the resolvers answer the control query.
    expect(gathered.value.a).toEqual({ ok: true, value: ['192.0.2.72'] });
    expect(world.primary.queries.some((q) => q.name === '' && q.type === 'SOA')).toBe(true);
  });

  it('ignores failed DMARC Tree Walk levels above a name that has a record (RFC 9989 §4.10.1 leaves DNS errors to the receiver)', async () => {
    const gathered = await gatherDns(world.client(), validDomain('mail.dmarc-shop.co.uk'));
    if (!gathered.ok) throw new Error(`expected facts, got ${gathered.failure.code}`);
    expect(gathered.value.dmarc).toEqual({
      ok: true,
      value: [
        { name: '_dmarc.mail.dmarc-shop.co.uk', txt: [] },
        { name: '_dmarc.dmarc-shop.co.uk', txt: ['v=DMARC1; p=reject; rua=mailto:d@dmarc-shop.co.uk'] },
      ],
    });
  });

  it('fails as a whole when the resolvers misbehave (HTTP-level garbage) on both sides', async () => {
    world.primary.mode = 'garbage';
    world.fallback.mode = 'wrong_content_type';
    const gathered = await gatherDns(world.client(), validDomain('deep-shop.co.uk'));
    expect(gathered.ok ? 'data' : gathered.failure).toMatchObject({
      code: 'bad_content_type',
      source: 'doh',
    });
  });
});

describe('resolveAddresses', () => {
  it('returns A then AAAA after following the CNAME chain', async () => {
    const addresses = await resolveAddresses(world.client(), 'eu.store.deep-shop.co.uk');
    expect(addresses).toEqual({ ok: true, value: ['192.0.2.71', '2001:db8::71'] });
  });

  it('returns an empty list for a name that does not exist', async () => {
    expect(await resolveAddresses(world.client(), 'nope.deep-shop.co.uk')).toEqual({ ok: true, value: [] });
  });

  it('returns the failure when the resolvers fail', async () => {
    world.primary.mode = 'http_500';
    world.fallback.mode = 'http_500';
    const result = await resolveAddresses(world.client(), 'deep-shop.co.uk');
    expect(result.ok ? 'data' : result.failure.code).toBe('http_status');
  });
});
