import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CRTSH_DER_MAX_BYTES,
  createCertificateDer,
  crtshDownloadUrl,
} from '../../../../src/sources/ct/certificate-der.ts';
import { fetchCrtshIssuances } from '../../../../src/sources/ct/crtsh.ts';
import type { Issuance } from '../../../../src/sources/ct/issuance.ts';
import { pemCertificateDer, readCertificate } from '../../../../src/sources/ct/x509.ts';
import { type CrtshFake, startCrtsh } from '../../../world/crtsh.ts';
import type { CrtshMode } from '../../../world/ct-history.ts';
import { ctScenarios, loopbackFetch, NOW } from './world.ts';

const highBitSerial = {
  domain: 'high-bit.com',
  about: 'A certificate whose serial has the high bit set, printed by crt.sh with its sign byte.',
  ct: {
    certificates: [
      { issuer: 'google' as const, names: ['high-bit.com'], issuedDaysAgo: 3, serial: '00f1e2d3c4' },
    ],
  },
};

let fake: CrtshFake;
let issuances: Issuance[];
beforeAll(async () => {
  fake = await startCrtsh(ctScenarios(highBitSerial), { now: () => NOW });
  const found = await fetchCrtshIssuances('healthy-shop.com', {
    fetch: loopbackFetch,
    baseUrl: fake.url,
    timeoutMs: 2_000,
  });
  if (!found.ok) throw new Error(found.failure.detail);
  issuances = found.value;
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.mode = null;
  fake.downloadMode = null;
  fake.delayMs = 0;
  fake.requests.length = 0;
});

const downloads = () => fake.requests.filter((request) => request.url.searchParams.has('d'));
const newest = () => {
  const [first] = issuances;
  if (!first) throw new Error('the crt.sh fake listed no issuance');
  return first;
};

function certificateDer(overrides: Partial<Parameters<typeof createCertificateDer>[0]> = {}) {
  return createCertificateDer({ fetch: loopbackFetch, crtshUrl: fake.url, timeoutMs: 1_000, ...overrides });
}

describe('certificate DER: sources', () => {
  it('returns the DER the issuance already carries (Cert Spotter) without asking crt.sh', async () => {
    const der = new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01]);
    const issuance = { ...newest(), der };
    expect(await certificateDer()(issuance)).toBe(der);
    expect(fake.requests).toHaveLength(0);
  });

  it('downloads crt.sh ?d=<id> (the final certificate), PEM as crt.sh sends it, and reads it', async () => {
    const issuance = newest();
    const der = await certificateDer()(issuance);
    expect(downloads().map((request) => request.url.search)).toEqual([`?d=${issuance.crtshId}`]);
    const facts = der && readCertificate(der);
    expect(facts).toMatchObject({
      serial: issuance.serial,
      issuerDn: issuance.issuerDn,
      notBefore: issuance.notBefore,
      notAfter: issuance.notAfter,
    });
    expect(facts?.authorityKeyId).toHaveLength(20);
  });

  it('keeps the sign byte of a high-bit serial in the DER, while the issuance serial drops it', async () => {
    const found = await fetchCrtshIssuances('high-bit.com', {
      fetch: loopbackFetch,
      baseUrl: fake.url,
      timeoutMs: 2_000,
    });
    if (!found.ok) throw new Error(found.failure.detail);
    const [issuance] = found.value;
    expect(issuance?.serial).toBe('f1e2d3c4');
    const der = issuance && (await certificateDer()(issuance));
    const facts = der && readCertificate(der);
    expect(facts?.serial).toBe('f1e2d3c4');
    expect(Buffer.from(facts?.serialNumber ?? []).toString('hex')).toBe('00f1e2d3c4');
  });

  it('gives null, asking nobody, for an issuance with neither DER nor a crt.sh id', async () => {
    expect(await certificateDer()({ ...newest(), crtshId: null })).toBeNull();
    expect(await certificateDer()({ ...newest(), crtshId: '12; DROP' })).toBeNull();
    expect(fake.requests).toHaveLength(0);
  });

  it('builds the download URL on the configured base, path kept', () => {
    expect(crtshDownloadUrl(new URL('http://127.0.0.1:1/crtsh'), '42').href).toBe(
      'http://127.0.0.1:1/crtsh/?d=42',
    );
  });
});

describe('certificate DER: cache', () => {
  it('keeps a download without end: asked again years later, crt.sh is not asked again', async () => {
    let clock = 0;
    const der = certificateDer({ now: () => clock });
    const first = await der(newest());
    clock += 10 * 365 * 86_400_000;
    expect(await der(newest())).toBe(first);
    expect(downloads()).toHaveLength(1);
  });

  it('is bounded: past its size the least recently used certificate is downloaded again', async () => {
    const der = certificateDer({ maxEntries: 2 });
    const [a, b, c] = issuances;
    if (!a || !b || !c) throw new Error('need three issuances');
    await der(a);
    await der(b);
    await der(c);
    await der(a);
    expect(downloads().map((request) => request.url.searchParams.get('d'))).toEqual([
      a.crtshId,
      b.crtshId,
      c.crtshId,
      a.crtshId,
    ]);
  });

  it('shares one download among concurrent asks for one certificate', async () => {
    fake.delayMs = 100;
    const der = certificateDer();
    const answers = await Promise.all(Array.from({ length: 20 }, () => der(newest())));
    expect(downloads()).toHaveLength(1);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toBeInstanceOf(Uint8Array);
  });

  it('does not keep a failure: the next ask downloads again', async () => {
    const der = certificateDer();
    fake.downloadMode = 'db_error';
    expect(await der(newest())).toBeNull();
    fake.downloadMode = null;
    expect(await der(newest())).toBeInstanceOf(Uint8Array);
    expect(downloads()).toHaveLength(2);
  });
});

describe('certificate DER: failures give null, never a throw', () => {
  it.each<[CrtshMode, string]>([
    ['html_error', '200 text/html error page'],
    ['db_error', '503 text/html'],
    ['gateway_error', '503 text/plain ERROR'],
    ['bad_gateway', 'nginx 502'],
    ['gateway_timeout', 'nginx 504'],
    ['truncated', 'PEM cut in half'],
    ['oversized', `a body over ${CRTSH_DER_MAX_BYTES} bytes`],
    ['empty', 'the not-found page'],
  ])('%s (%s) → null', async (mode) => {
    fake.downloadMode = mode;
    expect(await certificateDer()(newest())).toBeNull();
    expect(downloads()).toHaveLength(1);
  });

  it('a hang → null within the time bound', async () => {
    fake.downloadMode = 'hang';
    const started = performance.now();
    expect(await certificateDer({ timeoutMs: 200 })(newest())).toBeNull();
    expect(performance.now() - started).toBeLessThan(700);
  });

  it('an id crt.sh does not know → null', async () => {
    expect(await certificateDer()({ ...newest(), crtshId: '99' })).toBeNull();
  });

  it('another certificate than the issuance (serial differs) → null', async () => {
    const [a, b] = issuances;
    if (!a || !b) throw new Error('need two issuances');
    expect(await certificateDer()({ ...a, crtshId: b.crtshId })).toBeNull();
  });

  it('an unreachable crt.sh or a throwing fetch → null', async () => {
    const refused = certificateDer({ crtshUrl: new URL('http://127.0.0.1:9/') });
    expect(await refused(newest())).toBeNull();
    const throwing = certificateDer({ fetch: () => Promise.reject(new TypeError('boom')) });
    expect(await throwing(newest())).toBeNull();
  });
});

describe('PEM and DER reading (hostile bodies)', () => {
  const pemOf = (der: Uint8Array) =>
    `-----BEGIN CERTIFICATE-----\n${(
      Buffer.from(der)
        .toString('base64')
        .match(/.{1,64}/g) ?? []
    ).join('\n')}\n-----END CERTIFICATE-----\n`;

  it('reads one PEM block, with LF or CRLF line ends', async () => {
    const der = await certificateDer()(newest());
    if (!der) throw new Error('no DER');
    expect(pemCertificateDer(pemOf(der))).toEqual(der);
    expect(pemCertificateDer(pemOf(der).replaceAll('\n', '\r\n'))).toEqual(der);
  });

  it.each([
    ['an HTML page', '<html><body>ERROR</body></html>'],
    ['two blocks', 'PEM\nPEM'],
    ['text before the block', 'junk\nPEM'],
    [
      'a private key block',
      'PEM'.replace('PEM', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'),
    ],
    ['bad base64', '-----BEGIN CERTIFICATE-----\nAA*A\n-----END CERTIFICATE-----\n'],
    ['base64 of the wrong length', '-----BEGIN CERTIFICATE-----\nAAAAA\n-----END CERTIFICATE-----\n'],
    ['an empty block', '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n'],
    ['nothing', ''],
  ])('refuses %s', async (_name, template) => {
    const der = await certificateDer()(newest());
    if (!der) throw new Error('no DER');
    expect(pemCertificateDer(template.replaceAll('PEM', pemOf(der).trim()))).toBeNull();
  });

  it.each([3_000, CRTSH_DER_MAX_BYTES])(
    'refuses a block of %i whitespace characters without its end line at once (no regex backtracking)',
    (size) => {
      for (const fill of [' '.repeat(size), '\n '.repeat(size / 2)]) {
        const started = performance.now();
        expect(
          pemCertificateDer(`-----BEGIN CERTIFICATE-----\n${fill}A\n-----END CERTIFICATE----`),
        ).toBeNull();
        expect(
          pemCertificateDer(`-----BEGIN CERTIFICATE-----${fill}A${fill}-----END CERTIFICATE-----`),
        ).toBeNull();
        expect(performance.now() - started).toBeLessThan(100);
      }
    },
  );

  it('readCertificate gives null for bytes that are not a certificate', () => {
    expect(readCertificate(new Uint8Array())).toBeNull();
    expect(readCertificate(new Uint8Array(Buffer.from('<html>')))).toBeNull();
    expect(readCertificate(new Uint8Array([0x30, 0x82, 0xff, 0xff, 0x30]))).toBeNull();
  });

  it('readCertificate gives null for a certificate cut short', async () => {
    const der = await certificateDer()(newest());
    if (!der) throw new Error('no DER');
    expect(readCertificate(der.slice(0, Math.floor(der.length / 2)))).toBeNull();
  });
});

describe('the fake: precertificate and final certificate', () => {
  it('serves both ids of an issuance with one serial, only the precertificate poisoned', async () => {
    const issuance = newest();
    const finalId = issuance.crtshId ?? '';
    const precertId = String(Number(finalId) - 1);
    const der = certificateDer();
    const final = await der(issuance);
    const precert = await der({ ...issuance, crtshId: precertId });
    expect(final && readCertificate(final)?.serial).toBe(issuance.serial);
    expect(precert && readCertificate(precert)?.serial).toBe(issuance.serial);
    const poison = Buffer.from('060a2b06010401d679020403', 'hex'); // OID 1.3.6.1.4.1.11129.2.4.3
    expect(Buffer.from(precert ?? []).includes(poison)).toBe(true);
    expect(Buffer.from(final ?? []).includes(poison)).toBe(false);
    const download = fake.requests.find((request) => request.url.searchParams.get('d') === finalId);
    expect(download).toBeDefined();
  });

  it('answers with crt.sh headers', async () => {
    const response = await fetch(crtshDownloadUrl(fake.url, newest().crtshId ?? ''));
    expect(response.headers.get('content-type')).toBe('application/pkix-cert');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="${newest().crtshId}.crt"`,
    );
    const body = await response.text();
    expect(body).toMatch(
      /^-----BEGIN CERTIFICATE-----\n([A-Za-z0-9+/=]{64}\n)*[A-Za-z0-9+/=]{1,64}\n-----END CERTIFICATE-----\n$/,
    );
  });
});
