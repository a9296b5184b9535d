/** The expiry runner and admission end to end over the loopback RDAP world, on every expiry scenario. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expiryResultSchema } from '../../../../src/checks/expiry/result.ts';
import {
  createExpiryAdmission,
  createExpiryRunner,
  registryName,
} from '../../../../src/checks/expiry/run.ts';
import { normalizeDomain, type ValidDomain } from '../../../../src/domain/normalize.ts';
import { NOW, type RdapWorld, startRdapWorld } from '../../sources/rdap/world.ts';

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

function runner(timeoutMs?: number) {
  const rdap = world.client(timeoutMs);
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

describe('registryName', () => {
  it('uses the ICANN section of the public suffix list', () => {
    expect(registryName(valid('blog.shop.bakery.co.uk'))).toBe('bakery.co.uk');
    expect(registryName(valid('me.github.io'))).toBe('github.io');
  });
});
