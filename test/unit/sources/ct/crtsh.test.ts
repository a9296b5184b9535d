import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRTSH_MAX_BYTES, crtshSearchUrl, fetchCrtshIssuances } from '../../../../src/sources/ct/crtsh.ts';
import { type CrtshFake, startCrtsh } from '../../../world/crtsh.ts';
import type { CrtshMode } from '../../../world/ct-history.ts';
import { ctScenarios, DAY_MS, loopbackFetch, NOW } from './world.ts';

const edgeCases = {
  domain: 'odd-serials.com',
  about: 'Never-logged certificate with a sign-padded serial and a quoted issuer DN.',
  ct: {
    certificates: [
      {
        issuer: 'cloudflare' as const,
        names: ['odd-serials.com'],
        issuedDaysAgo: 5,
        serial: '00c3a1',
        logged: false,
      },
    ],
  },
};

let fake: CrtshFake;
beforeAll(async () => {
  fake = await startCrtsh(ctScenarios(edgeCases), { now: () => NOW });
});
afterAll(() => fake.close());

const lookup = (domain: string, timeoutMs = 2_000) =>
  fetchCrtshIssuances(domain, { fetch: loopbackFetch, baseUrl: fake.url, timeoutMs });

describe('crt.sh client: answers', () => {
  it('merges each precert + cert pair into one issuance, newest first, with UTC dates', async () => {
    fake.requests.length = 0;
    const result = await lookup('healthy-shop.com');
    if (!result.ok) throw new Error(result.failure.detail);
    expect(result.value).toHaveLength(6);
    const [newest] = result.value;
    expect(newest?.issuer).toBe("Let's Encrypt");
    expect(newest?.issuerDn).toBe("C=US, O=Let's Encrypt, CN=R11");
    expect(newest?.serial).toMatch(/^04[0-9a-f]{34}$/);
    expect(newest?.notBefore.getTime()).toBe(Math.floor((NOW.getTime() - 20 * DAY_MS) / 1000) * 1000);
    expect(newest?.names).toEqual(['healthy-shop.com']);
    // The precert's entry time wins over the final certificate's.
    expect(newest?.loggedAt?.getTime()).toBeLessThan((newest?.notBefore.getTime() ?? 0) + 3_600_000 + 8_000);
    const starts = result.value.map((issuance) => issuance.notBefore.getTime());
    expect(starts).toEqual([...starts].sort((a, b) => b - a));
    // An apex has no covering wildcard, so one exact search is enough.
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.url.search).toBe('?Identity=healthy-shop.com&match=%3D&output=json');
  });

  it('finds issuances through the covering wildcard, with a null common name', async () => {
    fake.requests.length = 0;
    const result = await lookup('shop.wildcard-cover.com');
    if (!result.ok) throw new Error(result.failure.detail);
    expect(result.value).toHaveLength(4);
    expect(result.value[0]?.names).toEqual(['*.wildcard-cover.com']);
    expect(result.value[0]?.issuer).toBe('Google Trust Services');
    expect(fake.requests.map((request) => request.url.searchParams.get('Identity')).sort()).toEqual([
      '*.wildcard-cover.com',
      'shop.wildcard-cover.com',
    ]);
  });

  it('returns an empty history for a name with no certificates (crt.sh answers [])', async () => {
    const result = await lookup('no-cert-yet.com');
    expect(result).toEqual({ ok: true, value: [] });
  });

  it('keeps every CA and name set that covers the name, including expired issuances', async () => {
    const result = await lookup('dual-ca-store.com');
    if (!result.ok) throw new Error(result.failure.detail);
    expect(result.value).toHaveLength(8);
    expect(new Set(result.value.map((issuance) => issuance.issuer))).toEqual(
      new Set(["Let's Encrypt", 'Sectigo Limited']),
    );
    expect(result.value.some((issuance) => issuance.notAfter < NOW)).toBe(true);
  });

  it('handles a null entry timestamp, a sign-padded serial and a quoted issuer organisation', async () => {
    const result = await lookup('odd-serials.com');
    if (!result.ok) throw new Error(result.failure.detail);
    expect(result.value).toEqual([
      expect.objectContaining({
        issuer: 'Cloudflare, Inc.',
        serial: 'c3a1',
        loggedAt: null,
        names: ['odd-serials.com'],
      }),
    ]);
  });

  it('builds exact-match identity URLs under a base path', () => {
    expect(crtshSearchUrl(new URL('https://crt.sh'), '*.example.org').href).toBe(
      'https://crt.sh/?Identity=*.example.org&match=%3D&output=json',
    );
  });
});

describe('crt.sh client: failure modes', () => {
  const cases: [CrtshMode, Record<string, unknown>][] = [
    ['html_error', { code: 'bad_content_type' }],
    ['db_error', { code: 'http_status', status: 503 }],
    ['gateway_error', { code: 'http_status', status: 503 }],
    ['bad_gateway', { code: 'http_status', status: 502 }],
    ['gateway_timeout', { code: 'http_status', status: 504 }],
    ['truncated', { code: 'malformed' }],
    ['oversized', { code: 'too_large' }],
  ];
  it.each(cases)('%s → typed failure', async (mode, expected) => {
    fake.mode = mode;
    try {
      const result = await lookup('healthy-shop.com');
      expect(result).toEqual({
        ok: false,
        failure: expect.objectContaining({ source: 'crt.sh', ...expected }),
      });
    } finally {
      fake.mode = null;
    }
  });

  it('a hanging crt.sh is a timeout within the budget', async () => {
    fake.mode = 'hang';
    const started = performance.now();
    try {
      const result = await lookup('healthy-shop.com', 300);
      expect(result).toEqual({
        ok: false,
        failure: expect.objectContaining({ source: 'crt.sh', code: 'timeout' }),
      });
      expect(performance.now() - started).toBeLessThan(800);
    } finally {
      fake.mode = null;
    }
  });

  it('the oversized body really is over the 5 MB cap', () => {
    expect(CRTSH_MAX_BYTES).toBe(5 * 1024 * 1024);
  });
});
