import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CERTSPOTTER_DER_KEPT,
  CERTSPOTTER_MAX_PAGES,
  fetchCertspotterIssuances,
} from '../../../../src/sources/ct/certspotter.ts';
import { readCertificate } from '../../../../src/sources/ct/x509.ts';
import { type CertspotterFake, startCertspotter } from '../../../world/certspotter.ts';
import { startLoopbackServer } from '../../../world/loopback-server.ts';
import type { CtCertificate } from '../../../world/ct-history.ts';
import { ctScenarios, loopbackFetch, NOW } from './world.ts';

/** `count` live certificates for one name, one a day. */
const busyHost = (domain: string, count: number) => ({
  domain,
  about: `${count} live certificates for one name.`,
  ct: {
    certificates: Array.from({ length: count }, (_, i): CtCertificate => ({
      issuer: 'le-r11',
      names: [domain],
      issuedDaysAgo: i / 20,
      serial: `04${i.toString(16).padStart(6, '0')}`,
    })),
  },
});

let fake: CertspotterFake;
beforeAll(async () => {
  fake = await startCertspotter(
    ctScenarios(busyHost('busy-host.com', 150), busyHost('huge-host.com', 1_001)),
    {
      now: () => NOW,
      retryAfterSeconds: 120,
    },
  );
});
afterAll(() => fake.close());

const lookup = (domain: string, timeoutMs = 2_000, apiKey?: string) =>
  fetchCertspotterIssuances(domain, { fetch: loopbackFetch, baseUrl: fake.url, timeoutMs, apiKey });

describe('Cert Spotter client: answers', () => {
  it('lists only unexpired issuances with expanded names, issuer and DER (serial read from it), newest first', async () => {
    fake.requests.length = 0;
    const result = await lookup('healthy-shop.com', 2_000, 'k-123');
    if (!result.ok) throw new Error(result.failure.detail);
    // Lifetimes are 90 days: only the certificates issued 20 and 79 days ago are still valid.
    expect(result.value).toHaveLength(2);
    expect(result.value[0]).toEqual(
      expect.objectContaining({
        issuer: "Let's Encrypt",
        issuerDn: "C=US, O=Let's Encrypt, CN=R11",
        serial: expect.stringMatching(/^04[0-9a-f]{34}$/),
        loggedAt: null,
        crtshId: null,
        names: ['healthy-shop.com', 'www.healthy-shop.com'],
      }),
    );
    // The serial comes from the certificate's own bytes, which the issuance keeps.
    const der = result.value[0]?.der;
    expect(der && readCertificate(der)).toMatchObject({
      serial: result.value[0]?.serial,
      issuerDn: "C=US, O=Let's Encrypt, CN=R11",
      notBefore: result.value[0]?.notBefore,
    });
    expect(result.value[0]?.notBefore.getTime()).toBeGreaterThan(result.value[1]?.notBefore.getTime() ?? 0);
    const first = fake.requests[0];
    expect(first?.url.pathname).toBe('/v1/issuances');
    expect(first?.url.searchParams.getAll('expand')).toEqual(['dns_names', 'issuer', 'cert_der']);
    expect(first?.url.searchParams.get('include_subdomains')).toBe('false');
    expect(first?.url.searchParams.get('match_wildcards')).toBe('true');
    expect(first?.headers.authorization).toBe('Bearer k-123');
    // One page with data, then the empty page that ends the listing.
    expect(fake.requests).toHaveLength(2);
  });

  it('matches the covering wildcard for a subdomain', async () => {
    const result = await lookup('shop.wildcard-cover.com');
    if (!result.ok) throw new Error(result.failure.detail);
    expect(result.value.length).toBeGreaterThan(0);
    expect(result.value.every((issuance) => issuance.names.includes('*.wildcard-cover.com'))).toBe(true);
  });

  it('follows after= pages of 100 until an empty page', async () => {
    fake.requests.length = 0;
    const result = await lookup('busy-host.com');
    if (!result.ok) throw new Error(result.failure.detail);
    expect(result.value).toHaveLength(150);
    // Only the newest few have their bytes read and kept, and so a serial (the CT cache stays small).
    const kept = result.value.map((_, index) => index < CERTSPOTTER_DER_KEPT);
    expect(result.value.map((issuance) => issuance.der !== null)).toEqual(kept);
    expect(result.value.map((issuance) => issuance.serial !== null)).toEqual(kept);
    expect(result.value[0]?.serial).toBe('04000000'); // busy-host.com's newest (certificate 0, issued now)
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests[0]?.url.searchParams.has('after')).toBe(false);
    const secondAfter = BigInt(fake.requests[1]?.url.searchParams.get('after') ?? '0');
    const thirdAfter = BigInt(fake.requests[2]?.url.searchParams.get('after') ?? '0');
    expect(thirdAfter).toBeGreaterThan(secondAfter);
  });

  it(`refuses a listing longer than ${CERTSPOTTER_MAX_PAGES} pages rather than drop the newest`, async () => {
    const result = await lookup('huge-host.com', 5_000);
    expect(result).toEqual({
      ok: false,
      failure: expect.objectContaining({ code: 'too_large', source: 'certspotter' }),
    });
  });

  it('sends no Authorization header without a key', async () => {
    fake.requests.length = 0;
    await lookup('no-cert-yet.com');
    expect(fake.requests[0]?.headers.authorization).toBeUndefined();
  });
});

/** A complete Cert Spotter issuance object carrying `certDer` as its `cert_der`. */
const item = (certDer: unknown) => ({
  id: '1',
  tbs_sha256: 'aa',
  cert_sha256: 'bb',
  dns_names: ['hostile.com'],
  pubkey_sha256: 'cc',
  issuer: { pubkey_sha256: 'dd', name: "C=US, O=Let's Encrypt, CN=R11" },
  not_before: '2026-10-01T00:00:00Z',
  not_after: '2026-12-30T00:00:00Z',
  cert_der: certDer,
});
describe('Cert Spotter client: hostile cert_der', () => {
  it('keeps the issuance without DER or serial when cert_der is not base64 or not a certificate', async () => {
    const pages = [
      [item('not base64 at all!'), item(Buffer.from('<html>garbage</html>').toString('base64')), item('')],
      [],
    ];
    const hostile = await startLoopbackServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(pages.shift() ?? []));
    });
    try {
      const result = await fetchCertspotterIssuances('hostile.com', {
        fetch: loopbackFetch,
        baseUrl: hostile.url,
        timeoutMs: 2_000,
      });
      if (!result.ok) throw new Error(result.failure.detail);
      expect(result.value.map(({ der, serial }) => ({ der, serial }))).toEqual([
        { der: null, serial: null },
        // Decodable base64, but no certificate inside: the bytes are kept, no serial is made up.
        { der: new Uint8Array(Buffer.from('<html>garbage</html>')), serial: null },
        { der: null, serial: null },
      ]);
    } finally {
      await hostile.close();
    }
  });

  it('refuses a page whose cert_der is not a string', async () => {
    const hostile = await startLoopbackServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([item(42)]));
    });
    try {
      const result = await fetchCertspotterIssuances('hostile.com', {
        fetch: loopbackFetch,
        baseUrl: hostile.url,
        timeoutMs: 2_000,
      });
      expect(result).toMatchObject({ ok: false, failure: { code: 'malformed' } });
    } finally {
      await hostile.close();
    }
  });
});

describe('Cert Spotter client: failure modes', () => {
  it('429 with its JSON error → rate_limited, citing Retry-After', async () => {
    const result = await lookup('ct-outage.org');
    expect(result).toEqual({
      ok: false,
      failure: expect.objectContaining({
        code: 'rate_limited',
        status: 429,
        detail: expect.stringContaining('120'),
      }),
    });
  });

  it('500 → http_status', async () => {
    fake.mode = 'server_error';
    try {
      expect(await lookup('healthy-shop.com')).toEqual({
        ok: false,
        failure: expect.objectContaining({ code: 'http_status', status: 500 }),
      });
    } finally {
      fake.mode = null;
    }
  });

  it('a hang → timeout within the budget', async () => {
    fake.mode = 'hang';
    const started = performance.now();
    try {
      expect(await lookup('healthy-shop.com', 250)).toEqual({
        ok: false,
        failure: expect.objectContaining({ code: 'timeout', source: 'certspotter' }),
      });
      expect(performance.now() - started).toBeLessThan(750);
    } finally {
      fake.mode = null;
    }
  });
});
