/**
 * The four check routes end to end against the closed world (no payment gate: payment has its own
 * suites). Real sources, real fakes on loopback; responses are validated against the published
 * OpenAPI schemas, so the document describes exactly what the routes return.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { paidOperations } from '../../src/catalog.ts';
import { createRunners } from '../../src/runners.ts';
import { nodeReach } from '../../src/sources/node-reach.ts';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { NO_OP_GATE } from '../../src/http/payment-gate.ts';
import { buildOpenApiDocument } from '../../src/http/discovery/openapi.ts';
import { startWorld, type World } from '../world/index.ts';

const BASE = 'https://checks.example.com';
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are validated against the OpenAPI schema, then read freely.
type Body = Record<string, any>;
let world: World;
let app: ReturnType<typeof createApp>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
const openapi = buildOpenApiDocument(BASE) as {
  paths: Record<
    string,
    { get: { responses: Record<string, { content: Record<string, { schema: object }> }> } }
  >;
  components: object;
};

/** A fresh app: new runners, so no answer comes from an earlier test's cache. */
function freshApp() {
  const config = loadConfig({ ...world.env, PUBLIC_BASE_URL: BASE });
  const runners = createRunners(config, {
    fetch: globalThis.fetch,
    now: () => new Date(),
    reach: nodeReach(world.site.caPem),
  });
  return createApp({ payments: NO_OP_GATE, config, runners, logger: pino({ level: 'silent' }) });
}

beforeAll(async () => {
  world = await startWorld();
  app = freshApp();
});
afterEach(() => world.reset());
afterAll(() => world.close());

async function get(route: string, domain: string) {
  const res = await app.request(`${route}?domain=${encodeURIComponent(domain)}`);
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Body };
}

/** Validates a 200 body against the OpenAPI document's schema for that route. */
function expectMatchesOpenApi(route: string, body: unknown) {
  const schema = openapi.paths[route]?.get.responses['200']?.content['application/json']?.schema;
  expect(schema, `OpenAPI schema for ${route}`).toBeDefined();
  // The response schemas reference the document's components; give them the same root.
  const validate = ajv.compile({ ...(schema as object), components: openapi.components });
  const valid = validate(body);
  expect(validate.errors ?? [], `${route} response vs OpenAPI`).toEqual([]);
  expect(valid).toBe(true);
}

const codes = (body: Body) => (body.findings as { code: string }[]).map((f) => f.code);

describe('a healthy domain on every route', () => {
  it.each(paidOperations.map((op) => op.route))(
    '%s answers 200 matching its OpenAPI schema',
    async (route) => {
      const { status, body } = await get(route, 'healthy-shop.com');
      expect(status).toBe(200);
      expect(body.domain).toBe('healthy-shop.com');
      expectMatchesOpenApi(route, body);
    },
  );

  it("cert: current Let's Encrypt certificate, renewal ok, live probe passing", async () => {
    const { body } = await get('/v1/cert', 'https://Healthy-Shop.com/some/path');
    expect(body.domain).toBe('healthy-shop.com');
    expect(body.ct_source).toBe('crt.sh');
    expect(body.certificate.issuer).toBe("Let's Encrypt");
    expect(body.renewal.stall.status).toBe('ok');
    expect(body.live_probe).toMatchObject({ ok: true, http_status: 200, error: null });
    expect(codes(body)).not.toContain('probe.failed');
  });

  it('dns: SPF within limits, strict DMARC, CAA at the apex, signed', async () => {
    const { body } = await get('/v1/dns', 'healthy-shop.com');
    expect(body.spf).toMatchObject({ valid: true, all: '-all' });
    expect(body.dmarc).toMatchObject({ policy: 'reject', found_at: '_dmarc.healthy-shop.com' });
    expect(body.caa.found_at).toBe('healthy-shop.com');
    expect(body.dnssec.status).toBe('signed');
    expect(body.findings.filter((f: { severity: string }) => f.severity !== 'info')).toEqual([]);
  });

  it('expiry: registrar, dates and locks from the registry', async () => {
    const { body } = await get('/v1/expiry', 'healthy-shop.com');
    expect(body.registrar).toEqual({ name: 'MarkMonitor Inc.', iana_id: '292' });
    expect(body.status).toContain('clientTransferProhibited');
    expect(body.days_left).toBeGreaterThan(390);
    expect(body.dnssec_delegated).toBe(true);
  });

  it('site-health: all three sections, ok summary, not partial', async () => {
    const { body } = await get('/v1/site-health', 'healthy-shop.com');
    expect(body.partial).toBe(false);
    expect(body.summary.status).toBe('ok');
    expect(body.renewal_stall).toMatchObject({ status: 'ok', basis: 'ari' });
    expect(body.cert.renewal.ari).toMatchObject({ status: 'ok', ca: 'letsencrypt' });
    expect(body.lifetime_note.applies).toBe(false);
  });
});

describe('domains with problems', () => {
  it('site-health: a domain with a warning from every section, and the CAA cross-check', async () => {
    const { status, body } = await get('/v1/site-health', 'neglected-bistro.com');
    expect(status).toBe(200);
    expectMatchesOpenApi('/v1/site-health', body);
    expect(body.partial).toBe(false);
    // Fixed 60-day renewals, the CA's window ended 9 days ago (20 days left): stalled by ARI.
    expect(codes(body.cert)).toEqual(
      expect.arrayContaining([
        'cert.renewal_stalled',
        'cert.ari_window_passed',
        'cert.fixed_renewal_day',
        'probe.failed',
      ]),
    );
    expect(codes(body.dns)).toEqual(
      expect.arrayContaining(['spf.permissive_all', 'dmarc.policy_none', 'dnssec.unsigned']),
    );
    expect(codes(body.expiry)).toContain('expiry.expires_soon');
    expect(codes(body)).toEqual(['caa.issuer_not_permitted']);
    expect(body.renewal_stall).toMatchObject({ status: 'stalled', basis: 'ari' });
    expect(body.lifetime_note.applies).toBe(true);
    expect(body.lifetime_note.follows_ari_window).toBe(false);
    expect(body.summary.status).not.toBe('ok');
    expect(body.summary.counts.warning).toBeGreaterThanOrEqual(6);
    expect(body.summary.headline).toMatch(/^neglected-bistro\.com (has warnings|needs attention now): /);
  });

  it('cert: a stalled renewal with fixed 60-day renewals', async () => {
    const { status, body } = await get('/v1/cert', 'stalled-renewal.net');
    expect(status).toBe(200);
    expect(body.renewal.stall).toMatchObject({ status: 'stalled', basis: 'ari' });
    expect(body.renewal.ari).toMatchObject({ status: 'ok', ca: 'letsencrypt' });
    expect(codes(body)).toEqual(
      expect.arrayContaining(['cert.renewal_stalled', 'cert.ari_window_passed', 'cert.fixed_renewal_day']),
    );
    expectMatchesOpenApi('/v1/cert', body);
  });

  it('site-health: a stalled renewal sets the top-level verdict and the 64-day note', async () => {
    const { body } = await get('/v1/site-health', 'stalled-renewal.net');
    expect(body.renewal_stall.status).toBe('stalled');
    expect(body.lifetime_note.applies).toBe(true);
    expect(body.summary.status).toBe('critical');
    expectMatchesOpenApi('/v1/site-health', body);
  });

  it('dns: an SPF record past the lookup limit and a monitoring-only DMARC policy', async () => {
    const overflow = await get('/v1/dns', 'spf-overflow.net');
    expect(codes(overflow.body)).toContain('spf.too_many_lookups');
    const monitor = await get('/v1/dns', 'dmarc-monitor.net');
    expect(codes(monitor.body)).toContain('dmarc.policy_none');
  });

  it('dns: renewal readiness (a delegated _acme-challenge, DNS-PERSIST-01 records) as the OpenAPI document describes it', async () => {
    const persist = await get('/v1/dns', 'persist-renewals.org');
    expect(persist.status).toBe(200);
    expectMatchesOpenApi('/v1/dns', persist.body);
    expect(persist.body.acme_challenge.cname).toMatch(/\.auth\.acme-dns\.io$/);
    expect(persist.body.validation_persist.map((r: Body) => r.issuer)).toEqual([
      'letsencrypt.org',
      'pki.goog',
    ]);
    expect(codes(persist.body)).toEqual(
      expect.arrayContaining(['dns.acme_challenge_present', 'dns.validation_persist_expiring']),
    );
    const leftover = await get('/v1/dns', 'leftover-token.com');
    expectMatchesOpenApi('/v1/dns', leftover.body);
    expect(codes(leftover.body)).toEqual(
      expect.arrayContaining([
        'dns.acme_challenge_present',
        'dns.validation_persist_expiring',
        'dns.validation_persist_malformed',
      ]),
    );
  });

  it('expiry: a registration on hold and one about to lapse', async () => {
    expect(codes((await get('/v1/expiry', 'held-storefront.com')).body)).toContain('expiry.hold');
    expect(codes((await get('/v1/expiry', 'lapsing-bakery.com')).body)).toContain('expiry.expires_soon');
  });

  it('expiry: a TLD without RDAP is refused with 400 unsupported_tld before any work', async () => {
    const registryCalls = world.rdapRegistry.requests.length;
    const { status, type, body } = await get('/v1/expiry', 'beispiel.de');
    expect(status).toBe(400);
    expect(type).toBe('application/problem+json');
    expect(body.code).toBe('unsupported_tld');
    expect(world.rdapRegistry.requests).toHaveLength(registryCalls);
  });
});

describe('the served certificate against CT (renewed but not deployed)', () => {
  it('a site still serving the certificate before its renewal: serves_newest false, with the finding', async () => {
    const { status, body } = await get('/v1/cert', 'stale-deploy.net');
    expect(status).toBe(200);
    expectMatchesOpenApi('/v1/cert', body);
    // The probe itself passes: pass/fail is unchanged, and no certificate detail is reported.
    expect(body.live_probe).toEqual({
      ok: true,
      http_status: 200,
      ms: expect.any(Number),
      error: null,
      serves_newest: false,
    });
    const finding = body.findings.find((f: { code: string }) => f.code === 'cert.renewed_not_deployed');
    expect(finding.severity).toBe('warning');
    expect(finding.message).toMatch(
      /^stale-deploy\.net still serves a certificate issued on \d{4}-\d{2}-\d{2}, although a newer one from Let's Encrypt was issued \d+ (hours|days) ago: the renewal worked but the new certificate was not deployed/,
    );
    const [newest, served] = body.history as { serial: string; not_before: string }[];
    // The served leaf was minted when the world started: its dates may trail CT's by a second.
    const stamp = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z';
    expect(finding.evidence).toMatch(
      new RegExp(
        `^served serial ${served?.serial} not_before ${stamp}; newest in CT serial ${newest?.serial} not_before ${newest?.not_before}$`,
      ),
    );
    expect(codes(body)).not.toContain('probe.failed');
  });

  it('the same verdict when only Cert Spotter answers (serials read from cert_der)', async () => {
    world.crtsh.mode = 'bad_gateway';
    app = freshApp(); // no CT answer cached from the test before
    const { body } = await get('/v1/cert', 'stale-deploy.net');
    expect(body.ct_source).toBe('certspotter');
    expect(body.certificate.serial).toMatch(/^04[0-9a-f]{34}$/);
    expect(body.live_probe.serves_newest).toBe(false);
    expect(codes(body)).toContain('cert.renewed_not_deployed');
  });

  it('a site serving the newest certificate (high-bit serial): serves_newest true, no finding', async () => {
    const { body } = await get('/v1/cert', 'fresh-deploy.net');
    expect(body.certificate.serial).toBe('d2c1b0a9f8e7d6c5b4a39281706f5e4d');
    expect(body.live_probe.serves_newest).toBe(true);
    expect(codes(body)).not.toContain('cert.renewed_not_deployed');
  });

  it('a served leaf CT does not show (not logged yet): null', async () => {
    // Sites serve their newest CT certificate; this one serves a renewal CT does not hold yet.
    const { body } = await get('/v1/cert', 'ct-lag.org');
    expect(body.live_probe.serves_newest).toBeNull();
  });

  it('site-health carries the verdict and the finding; the leaf bytes are in no answer', async () => {
    const { body } = await get('/v1/site-health', 'stale-deploy.net');
    expectMatchesOpenApi('/v1/site-health', body);
    expect(body.cert.live_probe.serves_newest).toBe(false);
    expect(codes(body.cert)).toContain('cert.renewed_not_deployed');
    const text = JSON.stringify(body);
    // `judged.source` may say "served"; no key carries the served leaf or its bytes.
    expect(text).not.toMatch(/leaf|"served":|"der"|MII/);
  });
});

describe('upstream failures', () => {
  beforeEach(() => {
    app = freshApp();
  });

  it('cert: both CT aggregators down → 502 naming both', async () => {
    world.crtsh.mode = 'bad_gateway';
    world.certspotter.mode = 'server_error';
    const { status, type, body } = await get('/v1/cert', 'healthy-shop.com');
    expect(status).toBe(502);
    expect(type).toBe('application/problem+json');
    expect(body.code).toBe('upstream_failed');
    expect(body.upstreams).toEqual([
      { name: 'crt.sh', error: 'http_status' },
      { name: 'certspotter', error: 'http_status' },
    ]);
  });

  it('cert: crt.sh answering [] that Cert Spotter cannot confirm → 502, never a "no certificate" result', async () => {
    const { status, body } = await get('/v1/cert', 'crtsh-blank-throttled.org');
    expect(status).toBe(502);
    expect(body.code).toBe('upstream_failed');
    expect(body.upstreams).toEqual([{ name: 'certspotter', error: 'rate_limited' }]);
  });

  it('cert: crt.sh answering [] for a domain with certificates → the certificate from Cert Spotter', async () => {
    const { status, body } = await get('/v1/cert', 'crtsh-blank.com');
    expect(status).toBe(200);
    expect(body.ct_source).toBe('certspotter');
    expect(body.certificate.issuer).toBe("Let's Encrypt");
    expect(body.live_probe.ok).toBe(true);
    expectMatchesOpenApi('/v1/cert', body);
  });

  it('dns: both resolvers failing → 502 naming the resolver, never "no SPF"', async () => {
    world.doh.mode = 'http_500';
    world.dohFallback.mode = 'garbage';
    const { status, body } = await get('/v1/dns', 'resolver-outage-test.com');
    expect(status).toBe(502);
    expect(body.upstreams.map((u: { name: string }) => u.name)).toContain('doh');
  });

  it('expiry: the registry answering 500 → 502 naming rdap', async () => {
    world.rdapRegistry.mode = 'server_error';
    const { status, body } = await get('/v1/expiry', 'healthy-shop.com');
    expect(status).toBe(502);
    expect(body.upstreams).toEqual([{ name: 'rdap', error: 'http_status' }]);
  });

  it('site-health: one source down → 200 partial with that section as an error', async () => {
    world.rdapRegistry.mode = 'server_error';
    const { status, body } = await get('/v1/site-health', 'healthy-shop.com');
    expect(status).toBe(200);
    expect(body.partial).toBe(true);
    expect(body.expiry).toEqual({
      error: { code: 'upstream_failed', message: expect.stringContaining('rdap') },
    });
    expect(body.cert.domain).toBe('healthy-shop.com');
    expectMatchesOpenApi('/v1/site-health', body);
  });

  it('site-health: every source down → 502 naming all of them', async () => {
    world.crtsh.mode = 'bad_gateway';
    world.certspotter.mode = 'server_error';
    world.doh.mode = 'http_500';
    world.dohFallback.mode = 'http_500';
    world.rdapRegistry.mode = 'server_error';
    const { status, body } = await get('/v1/site-health', 'healthy-shop.com');
    expect(status).toBe(502);
    const names = body.upstreams.map((u: { name: string }) => u.name);
    expect(names).toEqual(expect.arrayContaining(['crt.sh', 'certspotter', 'doh', 'rdap']));
  });
});
