/** The expiry runner and admission end to end over the loopback RDAP world, on every expiry scenario. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expiryResultSchema } from '../../../../src/checks/expiry/result.ts';
import {
  createExpiryAdmission,
  createExpiryRunner,
  EXPIRY_BUDGET_MS,
  registryName,
} from '../../../../src/checks/expiry/run.ts';
import { normalizeDomain, type ValidDomain } from '../../../../src/domain/normalize.ts';
import { NOW, type RdapWorld, type SteeringOptions, startRdapWorld } from '../../sources/rdap/world.ts';

let world: RdapWorld;
beforeEach(async () => {
  world = await startRdapWorld();
});
afterEach(() => world.close());

function valid(input: string): ValidDomain {
  const check = normalizeDomain(input);
  if (!check.valid) throw new Error(`${input} is not valid: ${check.reason.code}`);
  return check;
}

function runner(budgetMs?: number, steering?: SteeringOptions) {
  const rdap = world.client(budgetMs, steering);
  return {
    run: createExpiryRunner({ rdap, now: () => world.clock.now }),
    admit: createExpiryAdmission({ rdap }),
  };
}

async function result(domain: string) {
  const outcome = await runner().run(valid(domain));
  if (outcome.type !== 'result') throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  return expiryResultSchema.parse(outcome.result);
}

describe('expiry runner', () => {
  it.each([
    ['healthy-shop.com', []],
    ['renewal-due.net', ['expiry.expires_soon:warning']],
    ['lapsing-bakery.com', ['expiry.expires_soon:critical']],
    ['lapsed-garden.org', ['expiry.expired:critical']],
    ['held-storefront.com', ['expiry.hold:critical']],
    [
      'redeeming-cafe.org',
      ['expiry.expired:critical', 'expiry.hold:critical', 'expiry.pending_delete:critical'],
    ],
    ['fjord-bakeri.no', ['expiry.no_expiry_date:info']],
    ['referred-registrar.com', []],
    ['broken-referral.net', []],
    ['never-registered.net', ['expiry.not_registered:critical']],
    ['unclaimed-patisserie.shop', ['expiry.not_registered:critical']],
    ['unclaimed-kiosk.org', ['expiry.not_registered:critical']],
    ['boulangerie-signee.fr', []],
    ['gallery-orgcard.com', []],
    ['harbour-tearoom.co.uk', []],
    ['internal-referral.com', []],
  ])('%s → %j', async (domain, expected) => {
    const checked = await result(domain);
    expect(checked.findings.map((f) => `${f.code}:${f.severity}`)).toEqual(expected);
    expect(checked.checked_at).toBe(NOW.toISOString().replace('.000', ''));
  });

  it('reports the healthy scenario in full', async () => {
    const checked = await result('healthy-shop.com');
    expect(checked).toMatchObject({
      registered: true,
      registrar: { name: 'MarkMonitor Inc.', iana_id: '292' },
      registered_at: '2009-05-14T17:22:08Z',
      days_left: 400,
      status: expect.arrayContaining(['clientTransferProhibited', 'serverDeleteProhibited']),
      nameservers: ['ns1.healthy-shop.com', 'ns2.healthy-shop.com'],
      dnssec_delegated: true,
      rdap_server: new URL('/com/v1/', world.registry.url).href,
    });
    expect(checked.sources.map((s) => s.name)).toEqual(['rdap-bootstrap', 'rdap']);
  });

  it('names the referral registrar and notes a failed referral in sources', async () => {
    expect((await result('referred-registrar.com')).registrar).toEqual({
      name: 'Porkbun LLC',
      iana_id: '1861',
    });
    const broken = await result('broken-referral.net');
    expect(broken.registrar).toEqual({ name: null, iana_id: null });
    expect(broken.sources.find((s) => s.name === 'rdap-registrar')?.ok).toBe(false);
  });

  it('reads the recorded shapes: AFNIC secureDns, an org-only vCard, legacy event names with +0000', async () => {
    expect((await result('boulangerie-signee.fr')).dnssec_delegated).toBe(true);
    expect((await result('gallery-orgcard.com')).registrar).toEqual({ name: 'Gandi SAS', iana_id: '81' });
    expect(await result('harbour-tearoom.co.uk')).toMatchObject({
      registered_at: '2012-07-01T10:20:30Z',
      expires_at: '2027-07-01T10:20:30Z',
      updated_at: '2026-06-02T07:00:00Z',
    });
  });

  it('updated_at is `last changed` only; `last update of RDAP database` is rdap_updated_at', async () => {
    const both = await result('healthy-shop.com');
    expect(both.updated_at).not.toBeNull();
    expect(both.rdap_updated_at).not.toBeNull();
    expect(Date.parse(both.updated_at ?? '')).toBeLessThan(Date.parse(both.rdap_updated_at ?? ''));
    const refreshOnly = await result('registry-refresh.com');
    expect(refreshOnly.updated_at).toBeNull();
    expect(refreshOnly.rdap_updated_at).not.toBeNull();
  });

  it('answers a 404 sent as text/html or untyped as not registered, not a 502', async () => {
    for (const domain of ['unclaimed-patisserie.shop', 'unclaimed-kiosk.org']) {
      expect(await result(domain)).toMatchObject({ registered: false, expires_at: null });
    }
  });

  it('never fetches a referral to cloud metadata, even with PROBE_ALLOW_PRIVATE, nor echoes its credentials', async () => {
    const checked = await result('internal-referral.com');
    expect(checked).toMatchObject({
      registered: true,
      registrar: { name: null, iana_id: null },
      days_left: 120,
    });
    const referral = checked.sources.find((s) => s.name === 'rdap-registrar');
    expect(referral).toMatchObject({ ok: false, url: 'http://169.254.169.254/' });
    expect(JSON.stringify(checked)).not.toMatch(/s3cret|rdap-user/);
  });

  it('fails as upstream_failed blocked_address when the bootstrap base is cloud metadata', async () => {
    world.bootstrap.services.push([['com'], ['http://169.254.169.254/com/v1/']]);
    const outcome = await runner().run(valid('healthy-shop.com'));
    expect(outcome).toMatchObject({
      type: 'upstream_failed',
      upstreams: [{ name: 'rdap', error: 'blocked_address' }],
    });
    expect(world.registry.requests).toHaveLength(0);
  });

  it('queries the registrable domain for a subdomain or a URL', async () => {
    const checked = await result('https://www.Shop.Healthy-Shop.com:8443/cart?x=1');
    expect(checked.domain).toBe('healthy-shop.com');
    expect(world.registry.requests.map((r) => r.url.pathname)).toEqual(['/com/v1/domain/healthy-shop.com']);
  });

  it('refuses an unsupported TLD as invalid_input unsupported_tld without a registry call', async () => {
    const outcome = await runner().run(valid('bakery-berlin.de'));
    expect(outcome).toMatchObject({ type: 'invalid_input', reason: { code: 'unsupported_tld' } });
    expect(world.registry.requests).toHaveLength(0);
  });

  it.each([
    ['throttled-registry.com', 'rate_limited'],
    ['failing-registry.com', 'http_status'],
  ])('turns %s into upstream_failed (%s)', async (domain, error) => {
    const outcome = await runner().run(valid(domain));
    expect(outcome).toMatchObject({ type: 'upstream_failed', upstreams: [{ name: 'rdap', error }] });
  });

  it('turns a hanging registry into upstream_failed timeout', async () => {
    const outcome = await runner(200).run(valid('silent-registry.com'));
    expect(outcome).toMatchObject({
      type: 'upstream_failed',
      upstreams: [{ name: 'rdap', error: 'timeout' }],
    });
  });
});

describe('expiry budget', () => {
  const BUDGET_MS = 400;
  const SLACK_MS = 400;

  it(`is one deadline of at most 12 s (EXPIRY_BUDGET_MS = ${EXPIRY_BUDGET_MS})`, () => {
    expect(EXPIRY_BUDGET_MS).toBeLessThanOrEqual(12_000);
  });

  async function timed(domain: string, steering?: SteeringOptions) {
    const { run } = runner(BUDGET_MS, steering);
    const started = performance.now();
    const outcome = await run(valid(domain));
    return { outcome, ms: performance.now() - started };
  }

  it('cuts a hanging bootstrap file at the budget', async () => {
    world.bootstrap.mode = 'hang';
    const { outcome, ms } = await timed('healthy-shop.com');
    expect(outcome).toMatchObject({ upstreams: [{ name: 'rdap-bootstrap', error: 'timeout' }] });
    expect(ms).toBeGreaterThanOrEqual(BUDGET_MS - 10);
    expect(ms).toBeLessThan(BUDGET_MS + SLACK_MS);
  });

  it('cuts a hanging DoH lookup of the registry host at the budget', async () => {
    const base = new URL('/com/v1/', world.registry.url);
    base.hostname = 'registry.rebinding-hosts.net';
    world.bootstrap.services.push([['com'], [base.href]]);
    world.doh.mode = 'hang';
    const { outcome, ms } = await timed('healthy-shop.com');
    expect(outcome).toMatchObject({ upstreams: [{ name: 'rdap', error: 'timeout' }] });
    expect(ms).toBeLessThan(BUDGET_MS + SLACK_MS);
  });

  it('counts the bootstrap fetch, the registry and a hanging referral against one deadline', async () => {
    world.registry.registrarMode = 'hang';
    const { outcome, ms } = await timed('referred-registrar.com');
    expect(outcome).toMatchObject({ type: 'result', result: { registrar: { name: null } } });
    expect(ms).toBeGreaterThanOrEqual(BUDGET_MS - 10);
    expect(ms).toBeLessThan(BUDGET_MS + SLACK_MS);
  });
});

describe('expiry admission', () => {
  it('admits a TLD the bootstrap covers', async () => {
    expect(await runner().admit(valid('www.healthy-shop.com'))).toBeNull();
    expect(world.registry.requests).toHaveLength(0);
  });

  it('refuses a TLD the bootstrap lacks', async () => {
    const outcome = await runner().admit(valid('startup.io'));
    expect(outcome).toMatchObject({ type: 'invalid_input', reason: { code: 'unsupported_tld' } });
    expect(outcome?.type === 'invalid_input' && outcome.reason.message).toContain('.io');
  });

  it('answers upstream_failed when the bootstrap cannot be fetched', async () => {
    world.bootstrap.mode = 'server_error';
    const outcome = await runner().admit(valid('healthy-shop.com'));
    expect(outcome).toMatchObject({
      type: 'upstream_failed',
      upstreams: [{ name: 'rdap-bootstrap', error: 'http_status' }],
    });
  });
});

describe('expiry admission under a flood while the bootstrap fails', () => {
  it('300 unpaid admissions over a minute make a handful of bootstrap fetches, all refused as upstream_failed', async () => {
    world.bootstrap.mode = 'server_error';
    const { admit } = runner();
    const outcomes = [];
    // 300 requests over 60 s on the world clock, in bursts of ten concurrent ones.
    for (let burst = 0; burst < 30; burst += 1) {
      outcomes.push(
        ...(await Promise.all(Array.from({ length: 10 }, () => admit(valid('healthy-shop.com'))))),
      );
      world.clock.advance(2_000);
    }
    expect(outcomes).toHaveLength(300);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({
        type: 'upstream_failed',
        upstreams: [{ name: 'rdap-bootstrap', error: 'http_status' }],
      });
    }
    // One fetch per 10 s rest: 6 in the minute (it was one per few requests: 31 for 300).
    expect(world.bootstrap.requests.length).toBeLessThanOrEqual(6);
    expect(world.bootstrap.requests.length).toBeGreaterThanOrEqual(5);

    // IANA back: the next admission after the rest fetches the file and admits.
    world.bootstrap.mode = null;
    world.clock.advance(10_000);
    expect(await admit(valid('healthy-shop.com'))).toBeNull();
  });
});

describe('registryName', () => {
  it('uses the ICANN section of the public suffix list', () => {
    expect(registryName(valid('blog.shop.bakery.co.uk'))).toBe('bakery.co.uk');
    expect(registryName(valid('me.github.io'))).toBe('github.io');
  });
});
