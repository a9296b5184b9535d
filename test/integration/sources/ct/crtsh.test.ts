import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRTSH_MAX_BYTES, crtshSearchUrl, fetchCrtshIssuances } from '../../../../src/sources/ct/crtsh.ts';
import { type CrtshFake, startCrtsh } from '../../../world/crtsh.ts';
import type { CrtshMode } from '../../../world/ct-history.ts';
import issuerNotFound from '../../../world/scenarios/issuer-not-found.net.ts';
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

/** Identities that are not DNS names: an organisation name as CN, an e-mail SAN, an IP SAN. */
const contactNames = {
  domain: 'contact-names.org',
  about: 'A certificate whose CN is an organisation name and whose SANs hold an e-mail and an IP address.',
  ct: {
    certificates: [
      {
        issuer: 'sectigo' as const,
        names: ['contact-names.org', '192.0.2.7'],
        commonName: 'Contact Names Ltd',
        emails: ['hostmaster@contact-names.org'],
        issuedDaysAgo: 10,
        lifetimeDays: 180,
      },
    ],
  },
};

let fake: CrtshFake;
beforeAll(async () => {
  fake = await startCrtsh(ctScenarios(edgeCases, contactNames, issuerNotFound), { now: () => NOW });
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
    // Of the pair's two ids the final certificate's (logged second, the higher id) is kept; no DER.
    const raw = (await (await fetch(crtshSearchUrl(fake.url, 'healthy-shop.com'))).json()) as {
      id: number;
      serial_number: string;
    }[];
    const pairIds = raw.filter((row) => row.serial_number === newest?.serial).map((row) => row.id);
    expect(pairIds).toHaveLength(2);
    expect(newest?.crtshId).toBe(String(Math.max(...pairIds)));
    expect(newest?.der).toBeNull();
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
    // One friendly name per CA, not the DN's `O=Sectigo Limited` (issuer-name.ts).
    expect(new Set(result.value.map((issuance) => issuance.issuer))).toEqual(
      new Set(["Let's Encrypt", 'Sectigo']),
    );
    expect(result.value.some((issuance) => issuance.notAfter < NOW)).toBe(true);
  });

  it('handles a null entry timestamp, a sign-padded serial and a quoted issuer organisation', async () => {
    const result = await lookup('odd-serials.com');
    if (!result.ok) throw new Error(result.failure.detail);
    expect(result.value).toEqual([
      expect.objectContaining({
        // The quoted `O="Cloudflare, Inc."` is parsed whole; the intermediate is DigiCert's.
        issuer: 'DigiCert',
        issuerDn: 'C=US, O="Cloudflare, Inc.", CN=Cloudflare Inc ECC CA-3',
        serial: 'c3a1',
        loggedAt: null,
        names: ['odd-serials.com'],
      }),
    ]);
  });

  it('keeps only DNS names: no e-mail address, organisation name or IP address', async () => {
    const raw = await fetch(crtshSearchUrl(fake.url, 'contact-names.org'));
    const [row] = (await raw.json()) as { name_value: string; common_name: string }[];
    // The shape the fake sends: crt.sh lists the e-mail identity and the organisation CN.
    expect(row?.name_value.split('\n')).toEqual(['contact-names.org', 'hostmaster@contact-names.org']);
    expect(row?.common_name).toBe('Contact Names Ltd');
    const result = await lookup('contact-names.org');
    if (!result.ok) throw new Error(result.failure.detail);
    expect(result.value.map((issuance) => issuance.names)).toEqual([['contact-names.org']]);
  });

  it('drops rows whose issuer crt.sh cannot find (issuer_ca_id -1, "Issuer Not Found")', async () => {
    const raw = await fetch(crtshSearchUrl(fake.url, 'issuer-not-found.net'));
    const rows = (await raw.json()) as {
      issuer_ca_id: number;
      entry_timestamp: string | null;
      not_after: string;
    }[];
    // The unattributable row: the newest notBefore, never logged (so last: NULLS LAST), to 2033.
    expect(rows.at(-1)).toMatchObject({ issuer_ca_id: -1, entry_timestamp: null });
    expect(rows.at(-1)?.not_after.slice(0, 4)).toBe('2033');
    const result = await lookup('issuer-not-found.net');
    if (!result.ok) throw new Error(result.failure.detail);
    expect(result.value).toHaveLength(3);
    expect(result.value.every((issuance) => issuance.issuer === "Let's Encrypt")).toBe(true);
    expect(result.value[0]?.notAfter.getTime()).toBeLessThan(NOW.getTime());
  });

  it("answers [] in the 'empty' mode although certificates exist", async () => {
    fake.mode = 'empty';
    try {
      expect(await lookup('healthy-shop.com')).toEqual({ ok: true, value: [] });
    } finally {
      fake.mode = null;
    }
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
