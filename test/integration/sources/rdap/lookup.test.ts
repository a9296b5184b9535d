/** RDAP lookup against the loopback Verisign-shaped registry and registrar: data, referral, failures, caching. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RdapAnswer } from '../../../../src/sources/rdap/client.ts';
import healthyShop from '../../../world/scenarios/healthy-shop.com.ts';
import { DAY_MS, HOUR_MS, NOW, type RdapWorld, startRdapWorld } from './world.ts';

let world: RdapWorld;
beforeEach(async () => {
  world = await startRdapWorld();
});
afterEach(() => world.close());

function registered(answer: Awaited<ReturnType<ReturnType<RdapWorld['client']>['lookup']>>) {
  if (!answer.ok || answer.value.kind !== 'registered') {
    throw new Error(`expected a registration, got ${JSON.stringify(answer)}`);
  }
  return answer.value;
}
const healthyShopRecord = healthyShop.rdap?.registry;
// As the scenario writes them: the parser keeps status strings verbatim.
const healthyShopStatus = typeof healthyShopRecord === 'object' ? healthyShopRecord.status : [];
const sourceNames = (answer: RdapAnswer) => answer.sources.map((s) => `${s.name}:${s.ok}`);

describe('Verisign-shaped answers', () => {
  it('sends the RDAP Accept header to <base>domain/<name>', async () => {
    await world.client().lookup('healthy-shop.com');
    const request = world.registry.requests[0];
    expect(request?.url.pathname).toBe('/com/v1/domain/healthy-shop.com');
    expect(request?.headers.accept).toBe('application/rdap+json, application/json;q=0.9');
  });

  it('parses registrar, events, status, nameservers and DNSSEC from escaped, upper-case JSON', async () => {
    const raw = await (await fetch(new URL('/com/v1/domain/healthy-shop.com', world.registry.url))).text();
    expect(raw).toContain('"ldhName":"HEALTHY-SHOP.COM"');
    expect(raw).toContain('http:\\/\\/127.0.0.1');
    expect(raw).toContain('"last update of RDAP database"');

    expect(healthyShopStatus).toContain('server transfer prohibited');
    const answer = registered(await world.client().lookup('healthy-shop.com'));
    expect(answer.server.href).toBe(new URL('/com/v1/', world.registry.url).href);
    expect(answer.registration).toEqual({
      ldhName: 'healthy-shop.com',
      registrar: { name: 'MarkMonitor Inc.', ianaId: '292' },
      registeredAt: new Date('2009-05-14T17:22:08Z'),
      expiresAt: new Date(NOW.getTime() + 400 * DAY_MS),
      updatedAt: new Date(NOW.getTime() - 45 * DAY_MS),
      rdapUpdatedAt: NOW,
      status: healthyShopStatus,
      nameservers: ['ns1.healthy-shop.com', 'ns2.healthy-shop.com'],
      delegationSigned: true,
      referral: null,
    });
    expect(sourceNames(answer)).toEqual(['rdap-bootstrap:true', 'rdap:true']);
    expect(world.registry.registrar.requests).toHaveLength(0);
  });

  it('reads dates with fractional seconds and offsets, and a missing expiration event as null', async () => {
    const { registration } = registered(await world.client().lookup('fjord-bakeri.no'));
    expect(registration.expiresAt).toBeNull();
    expect(registration.registeredAt?.toISOString()).toBe('2014-04-02T08:11:12.345Z');
    expect(registration.updatedAt?.toISOString()).toBe('2026-02-17T07:00:00.500Z');
    expect(registration.nameservers).toEqual(['ns1.hyp.net', 'ns2.hyp.net']);
  });

  it('answers not_registered for a 404 whatever its body: empty, RFC 9083 JSON, HTML, untyped', async () => {
    const client = world.client();
    const domains = [
      'nobody-owns-this.com',
      'never-registered.net',
      'unclaimed-patisserie.shop',
      'unclaimed-kiosk.org',
    ];
    for (const domain of domains) {
      const answer = await client.lookup(domain);
      expect(answer).toMatchObject({ ok: true, value: { kind: 'not_registered' } });
    }
  });

  it('answers unsupported for a TLD without RDAP, without asking any registry', async () => {
    const answer = await world.client().lookup('bakery-berlin.de');
    expect(answer).toMatchObject({ ok: true, value: { kind: 'unsupported' } });
    expect(world.registry.requests).toHaveLength(0);
  });
});

describe('registrar referral', () => {
  it('follows rel=related to the registrar when the registry omits the registrar', async () => {
    const answer = registered(await world.client().lookup('referred-registrar.com'));
    expect(answer.registration.registrar).toEqual({ name: 'Porkbun LLC', ianaId: '1861' });
    // The registry's expiration stands; the registrar's `registrar expiration` is not used.
    expect(answer.registration.expiresAt).toEqual(new Date(NOW.getTime() + 200 * DAY_MS));
    expect(world.registry.registrar.requests.map((r) => r.url.pathname)).toEqual([
      '/rdap/domain/REFERRED-REGISTRAR.COM',
    ]);
    expect(sourceNames(answer)).toEqual(['rdap-bootstrap:true', 'rdap:true', 'rdap-registrar:true']);
  });

  it('keeps the registry data when the registrar answers 500, and notes it in sources', async () => {
    const answer = registered(await world.client().lookup('broken-referral.net'));
    expect(answer.registration.registrar).toEqual({ name: null, ianaId: null });
    expect(answer.registration.expiresAt).toEqual(new Date(NOW.getTime() + 90 * DAY_MS));
    expect(sourceNames(answer)).toEqual(['rdap-bootstrap:true', 'rdap:true', 'rdap-registrar:false']);
  });

  it('cuts a hanging referral at the end of the one shared budget', async () => {
    world.registry.registrarMode = 'hang';
    const client = world.client(400);
    await client.findServer('referred-registrar.com');
    const started = performance.now();
    const answer = registered(await client.lookup('referred-registrar.com'));
    const elapsed = performance.now() - started;
    expect(answer.registration.registrar.name).toBeNull();
    expect(sourceNames(answer)).toEqual(['rdap-bootstrap:true', 'rdap:true', 'rdap-registrar:false']);
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(900);
  });
});

describe('failures', () => {
  it('reports 429 as rate_limited with the Retry-After', async () => {
    const answer = await world.client().lookup('throttled-registry.com');
    expect(answer).toMatchObject({
      ok: false,
      failure: { code: 'rate_limited', status: 429, source: 'rdap' },
    });
    expect(!answer.ok && answer.failure.detail).toContain('retry after 60');
  });

  it('reports 500 as http_status', async () => {
    const answer = await world.client().lookup('failing-registry.com');
    expect(answer).toMatchObject({
      ok: false,
      failure: { code: 'http_status', status: 500, source: 'rdap' },
    });
  });

  it('reports a hanging registry as timeout within the budget', async () => {
    const client = world.client(250);
    await client.findServer('silent-registry.com');
    const started = performance.now();
    const answer = await client.lookup('silent-registry.com');
    expect(answer).toMatchObject({ ok: false, failure: { code: 'timeout', source: 'rdap' } });
    expect(performance.now() - started).toBeLessThan(800);
  });

  it.each([
    ['oversized', 'too_large'],
    ['html', 'bad_content_type'],
    ['truncated', 'malformed'],
  ] as const)('reports a %s answer as %s', async (mode, code) => {
    world.registry.mode = mode;
    const answer = await world.client().lookup('healthy-shop.com');
    expect(answer).toMatchObject({ ok: false, failure: { code, source: 'rdap' } });
  });

  it('reports a 400 RDAP error object (a query sent outside the server zone) as http_status', async () => {
    // Routes .com to the .net base: the fake refuses names outside its zone, as a misrouted query would be.
    world.bootstrap.services.push([['com'], [new URL('/net/v1/', world.registry.url).href]]);
    const answer = await world.client().lookup('healthy-shop.com');
    expect(answer).toMatchObject({ ok: false, failure: { code: 'http_status', status: 400 } });
  });
});

describe('caching and coalescing', () => {
  it('reuses an answer for 1 h, reported as cached with 0 ms', async () => {
    const client = world.client();
    await client.lookup('healthy-shop.com');
    world.clock.advance(HOUR_MS - 1);
    const again = registered(await client.lookup('healthy-shop.com'));
    expect(again.sources[1]).toMatchObject({ name: 'rdap', cached: true, ms: 0 });
    expect(world.registryHits('/com/v1/domain/healthy-shop.com')).toBe(1);
    world.clock.advance(1);
    await client.lookup('healthy-shop.com');
    expect(world.registryHits('/com/v1/domain/healthy-shop.com')).toBe(2);
  });

  it('caches a referral result together with the registry answer', async () => {
    const client = world.client();
    await client.lookup('referred-registrar.com');
    const again = registered(await client.lookup('REFERRED-REGISTRAR.COM.'));
    expect(again.registration.registrar.name).toBe('Porkbun LLC');
    expect(world.registry.registrar.requests).toHaveLength(1);
  });

  it('does not cache failures', async () => {
    const client = world.client();
    await client.lookup('throttled-registry.com');
    await client.lookup('throttled-registry.com');
    expect(world.registryHits('/com/v1/domain/throttled-registry.com')).toBe(2);
  });

  it('sends 1 request for 50 concurrent identical lookups', async () => {
    const client = world.client();
    const answers = await Promise.all(Array.from({ length: 50 }, () => client.lookup('healthy-shop.com')));
    expect(answers.every((a) => a.ok && a.value.kind === 'registered')).toBe(true);
    expect(world.registryHits('/com/v1/domain/healthy-shop.com')).toBe(1);
    expect(world.bootstrap.requests).toHaveLength(1);
  });
});
