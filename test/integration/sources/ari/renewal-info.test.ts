/**
 * The ARI client against the loopback CAs (test/world/acme.ts): directory, windows, the real
 * shapes of Let's Encrypt and Google, the failure modes, the cache, the pace and the bound.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AcmeDirectory } from '../../../../src/sources/ari/acme-cas.ts';
import { createPace } from '../../../../src/sources/ari/pace.ts';
import {
  ARI_DEFAULT_RETRY_MS,
  ARI_MAX_RETRY_MS,
  ARI_MIN_RETRY_MS,
  createAriClient,
  retryAfterMs,
} from '../../../../src/sources/ari/renewal-info.ts';
import { type AcmeCaFake, startAcmeCa, worldCertId } from '../../../world/acme.ts';
import { ctCertificates } from '../../../world/ct-certificates.ts';
import { datedCertificates } from '../../../world/ct-history.ts';
import { startLoopbackServer } from '../../../world/loopback-server.ts';
import type { Scenario } from '../../../world/scenario.ts';

const NOW = new Date('2026-11-20T12:00:00Z');
const LE = "Let's Encrypt";
const GOOGLE = 'Google Trust Services';

const scenario = (
  domain: string,
  issuer: 'le-r11' | 'google',
  issuedDaysAgo: number,
  ari?: Scenario['ari'],
): Scenario => ({
  domain,
  about: 'ARI client test',
  ct: { certificates: [{ issuer, names: [domain], issuedDaysAgo }] },
  ...(ari ? { ari } : {}),
});

const SCENARIOS = new Map<string, Scenario>(
  [
    scenario('usual.com', 'le-r11', 20),
    scenario('second.com', 'le-r11', 21),
    scenario('third.com', 'le-r11', 22),
    scenario('fourth.com', 'le-r11', 23),
    scenario('fifth.com', 'le-r11', 24),
    scenario('gts.com', 'google', 30),
    scenario('drill.com', 'le-r11', 20, {
      window: { startDays: 0.25, endDays: 0.27 },
      explanationUrl: 'https://letsencrypt.org/2026/03/19/drill',
    }),
    scenario('gone.com', 'le-r11', 20, { mode: 'not_found' }),
    scenario('throttled.com', 'le-r11', 20, { mode: 'rate_limited' }),
    scenario('down.com', 'le-r11', 20, { mode: 'unavailable' }),
    scenario('stuck.com', 'le-r11', 20, { mode: 'hang' }),
    scenario('garbled.com', 'le-r11', 20, { mode: 'invalid' }),
  ].map((s) => [s.domain, s]),
);

const certificates = ctCertificates();
const certIds = new Map<string, string>();

/** The CertID of a scenario's certificate, read from its bytes (filled in beforeAll). */
function certIdOf(domain: string): string {
  return certIds.get(domain) ?? '';
}

let letsencrypt: AcmeCaFake;
let google: AcmeCaFake;
let directories: AcmeDirectory[];

beforeAll(async () => {
  [letsencrypt, google] = await Promise.all([
    startAcmeCa('letsencrypt', SCENARIOS, { now: () => NOW, certificates }),
    startAcmeCa('google', SCENARIOS, { now: () => NOW, certificates }),
  ]);
  for (const [domain, scenario] of SCENARIOS) {
    const [cert] = datedCertificates(new Map([[domain, scenario]]), NOW);
    if (cert) certIds.set(domain, (await worldCertId(certificates, cert)) ?? '');
  }
  directories = [
    { ca: 'letsencrypt', directoryUrl: letsencrypt.directoryUrl },
    { ca: 'google', directoryUrl: google.directoryUrl },
  ];
});
afterAll(async () => Promise.all([letsencrypt?.close(), google?.close()]));
afterEach(() => {
  for (const fake of [letsencrypt, google]) {
    fake.mode = null;
    fake.renewalInfoOverride = null;
    fake.requests.length = 0;
  }
});

/** A client on a fake monotonic clock that tests can move. */
function client(options: { paceOf?: Parameters<typeof createAriClient>[0]['paceOf'] } = {}) {
  let ms = 1_000_000;
  const clock = () => ms + performance.now();
  const ari = createAriClient({ fetch, directories, now: () => NOW, clock, ...options });
  return { ari, advance: (by: number) => (ms += by) };
}

const renewalInfoRequests = (fake: AcmeCaFake) =>
  fake.requests.filter((r) => r.url.pathname !== '/directory');

describe('ARI from the CA', () => {
  it("Let's Encrypt: the usual window from the directory's renewalInfo, cached for Retry-After", async () => {
    const { ari, advance } = client();
    const first = await ari.ask(LE, certIdOf('usual.com'));
    expect(first).toMatchObject({ status: 'ok', ca: 'letsencrypt', explanationUrl: null, checkedAt: NOW });
    // Boulder: two-thirds of the 90-day lifetime ± 1 %: days 59.1 to 60.9 after issuance (20 days ago).
    expect((first.window?.start.getTime() ?? 0) - NOW.getTime()).toBeCloseTo((59.1 - 20) * 86_400_000, -6);
    expect((first.window?.end.getTime() ?? 0) - NOW.getTime()).toBeCloseTo((60.9 - 20) * 86_400_000, -6);
    expect(first.call).toMatchObject({
      name: 'ari',
      ok: true,
      cached: false,
      url: new URL('/acme/renewal-info', letsencrypt.url).href,
    });
    expect(renewalInfoRequests(letsencrypt).map((r) => r.url.pathname)).toEqual([
      `/acme/renewal-info/${certIdOf('usual.com')}`,
    ]);

    const again = await ari.ask(LE, certIdOf('usual.com'));
    expect(again.call).toMatchObject({ cached: true, ms: 0 });
    expect(renewalInfoRequests(letsencrypt)).toHaveLength(1);
    // The directory is read once an hour.
    expect(letsencrypt.requests.filter((r) => r.url.pathname === '/directory')).toHaveLength(1);
    // Retry-After: 21600 (6 h): asked again once it has passed.
    advance(21_600_000 + 1);
    await ari.ask(LE, certIdOf('usual.com'));
    expect(renewalInfoRequests(letsencrypt)).toHaveLength(2);
  });

  it('Google: its /renewal-info path, and an empty explanationURL is no explanation', async () => {
    const { ari } = client();
    const answer = await ari.ask(GOOGLE, certIdOf('gts.com'));
    expect(answer).toMatchObject({ status: 'ok', ca: 'google', explanationUrl: null });
    expect(renewalInfoRequests(google)[0]?.url.pathname).toBe(`/renewal-info/${certIdOf('gts.com')}`);
  });

  it('an early window with its explanation URL', async () => {
    const answer = await client().ari.ask(LE, certIdOf('drill.com'));
    expect(answer).toMatchObject({
      status: 'ok',
      explanationUrl: 'https://letsencrypt.org/2026/03/19/drill',
    });
  });

  it('404 for a certificate the CA does not know: not_found, kept for hours', async () => {
    const { ari, advance } = client();
    expect(await ari.ask(LE, certIdOf('gone.com'))).toMatchObject({ status: 'not_found', window: null });
    // A CertID the CA never issued, and one in another CA's.
    expect((await ari.ask(LE, 'AAAA.AQ')).status).toBe('not_found');
    expect((await ari.ask(GOOGLE, certIdOf('usual.com'))).status).toBe('not_found');
    advance(ARI_DEFAULT_RETRY_MS - 60_000);
    await ari.ask(LE, certIdOf('gone.com'));
    expect(renewalInfoRequests(letsencrypt)).toHaveLength(2);
  });

  it('429 with Retry-After: unavailable, and the CA is not asked again before Retry-After', async () => {
    const { ari, advance } = client();
    letsencrypt.failureRetryAfter = '300';
    expect(await ari.ask(LE, certIdOf('throttled.com'))).toMatchObject({
      status: 'unavailable',
      checkedAt: null,
    });
    const asked = renewalInfoRequests(letsencrypt).length;
    // Another certificate of the same CA: the CA is paused, nothing is sent.
    expect((await ari.ask(LE, certIdOf('second.com'))).status).toBe('unavailable');
    expect(renewalInfoRequests(letsencrypt)).toHaveLength(asked);
    advance(300_000 + 1);
    expect((await ari.ask(LE, certIdOf('third.com'))).status).toBe('ok');
  });

  it('503 with Retry-After: unavailable, the answer kept for Retry-After (at least a minute)', async () => {
    const { ari, advance } = client();
    letsencrypt.failureRetryAfter = '5';
    expect((await ari.ask(LE, certIdOf('down.com'))).status).toBe('unavailable');
    advance(5_001);
    await ari.ask(LE, certIdOf('down.com'));
    expect(renewalInfoRequests(letsencrypt)).toHaveLength(1);
    advance(ARI_MIN_RETRY_MS);
    await ari.ask(LE, certIdOf('down.com'));
    expect(renewalInfoRequests(letsencrypt)).toHaveLength(2);
  });

  it('a hanging CA: unavailable within the bound', async () => {
    const started = performance.now();
    expect((await client().ari.ask(LE, certIdOf('stuck.com'), 300)).status).toBe('unavailable');
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('an ask the check cut short (little budget left) keeps nothing: the next check asks again', async () => {
    const { ari } = client();
    letsencrypt.mode = 'hang';
    expect((await ari.ask(LE, certIdOf('usual.com'), 300)).status).toBe('unavailable');
    letsencrypt.mode = null;
    expect((await ari.ask(LE, certIdOf('usual.com'))).status).toBe('ok');
  });

  it('a CA that let a full second pass is left alone for a minute: its other certificates do not wait', async () => {
    const { ari, advance } = client();
    expect((await ari.ask(LE, certIdOf('stuck.com'), 1_200)).status).toBe('unavailable');
    const asked = letsencrypt.requests.length;
    const started = performance.now();
    expect((await ari.ask(LE, certIdOf('second.com'))).status).toBe('unavailable');
    expect(performance.now() - started).toBeLessThan(100);
    expect(letsencrypt.requests).toHaveLength(asked);
    advance(ARI_MIN_RETRY_MS + 1);
    expect((await ari.ask(LE, certIdOf('third.com'))).status).toBe('ok');
  });

  it('a window ending before it starts is no answer', async () => {
    expect((await client().ari.ask(LE, certIdOf('garbled.com'))).status).toBe('unavailable');
  });

  it('a renewalInfo on another host than the directory is refused: not_supported, never asked', async () => {
    letsencrypt.renewalInfoOverride = `${google.url.href}acme/renewal-info`;
    const { ari } = client();
    expect(await ari.ask(LE, certIdOf('usual.com'))).toMatchObject({ status: 'not_supported', call: null });
    expect(google.requests).toHaveLength(0);
  });

  it('a CA that is not configured, or publishes no ARI: not_supported', async () => {
    const only = createAriClient({ fetch, directories: directories.slice(0, 1), now: () => NOW });
    expect(await only.ask(GOOGLE, certIdOf('gts.com'))).toMatchObject({
      status: 'not_supported',
      ca: 'google',
    });
    expect(await only.ask('Sectigo', 'AA.AA')).toMatchObject({ status: 'not_supported', ca: null });
    expect(only.supports('Sectigo')).toBe(false);
    expect(google.requests).toHaveLength(0);
  });

  it('concurrent checks of one certificate share one request', async () => {
    const { ari } = client();
    const answers = await Promise.all(Array.from({ length: 20 }, () => ari.ask(LE, certIdOf('usual.com'))));
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set(['ok']));
    expect(renewalInfoRequests(letsencrypt)).toHaveLength(1);
    expect(answers.filter((a) => a.call?.cached === false)).toHaveLength(1);
  });

  it('the pace: a CA is never asked faster than its bucket allows; what does not fit the bound is not asked', async () => {
    // Two at once, then two a second; directory and renewalInfo both count.
    const { ari } = client({ paceOf: () => createPace({ perSecond: 2, burst: 2 }) });
    const domains = ['usual.com', 'second.com', 'third.com', 'fourth.com', 'fifth.com'];
    const started = performance.now();
    const answers = await Promise.all(domains.map((d) => ari.ask(LE, certIdOf(d), 600)));
    const elapsed = performance.now() - started;
    const sent = letsencrypt.requests.length;
    // At most the burst plus what refills in the elapsed time.
    expect(sent).toBeLessThanOrEqual(2 + Math.ceil((elapsed / 1000) * 2));
    expect(answers.filter((a) => a.status === 'unavailable').length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 'ok').length).toBeGreaterThan(0);
  });
});

describe('Retry-After', () => {
  const headers = (value: string) => new Headers({ 'retry-after': value });
  it('seconds or an HTTP date, clamped to 1 minute … 1 day', () => {
    expect(retryAfterMs(headers('21600'), NOW)).toBe(21_600_000);
    expect(retryAfterMs(headers('5'), NOW)).toBe(ARI_MIN_RETRY_MS);
    expect(retryAfterMs(headers('9999999'), NOW)).toBe(ARI_MAX_RETRY_MS);
    expect(retryAfterMs(headers('Fri, 20 Nov 2026 14:00:00 GMT'), NOW)).toBe(2 * 3_600_000);
    expect(retryAfterMs(headers('soon'), NOW)).toBeNull();
    expect(retryAfterMs(new Headers(), NOW)).toBeNull();
  });
});

describe('hostile CA answers', () => {
  /** A CA on loopback whose renewalInfo answers `reply` for every CertID. */
  async function hostileCa(reply: (res: ServerResponse) => void) {
    const server = await startLoopbackServer((_req, res, url) => {
      if (url.pathname === '/directory') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ renewalInfo: new URL('/ri', server.url).href }));
      }
      reply(res);
    });
    const ari = createAriClient({
      fetch,
      directories: [{ ca: 'letsencrypt', directoryUrl: new URL('/directory', server.url) }],
      now: () => NOW,
    });
    return { server, ari };
  }
  const json =
    (body: string, type = 'application/json') =>
    (res: ServerResponse) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    };

  it.each([
    ['not JSON', json('{"suggestedWindow":')],
    ['no window', json('{"explanationURL":"https://x.example/"}')],
    ['dates that are not RFC 3339', json('{"suggestedWindow":{"start":"yesterday","end":"tomorrow"}}')],
    ['an HTML page', json('<html>error</html>', 'text/html')],
    [
      'a body over 64 KiB',
      json(
        `{"suggestedWindow":{"start":"2026-12-01T00:00:00Z","end":"2026-12-02T00:00:00Z"},"x":"${'a'.repeat(70_000)}"}`,
      ),
    ],
    ['a 500', (res: ServerResponse) => void res.writeHead(500).end()],
    [
      'a redirect',
      (res: ServerResponse) => void res.writeHead(302, { location: 'http://169.254.169.254/' }).end(),
    ],
  ])('%s: unavailable', async (_name, reply) => {
    const { server, ari } = await hostileCa(reply);
    try {
      expect(await ari.ask(LE, 'AQ.AQ')).toMatchObject({ status: 'unavailable', window: null });
    } finally {
      await server.close();
    }
  });

  it('a directory read the check cut short is not kept: the next check reads it', async () => {
    const window = '"suggestedWindow":{"start":"2026-12-01T00:00:00Z","end":"2026-12-02T00:00:00Z"}';
    const server = await startLoopbackServer((_req, res, url) => {
      if (url.pathname !== '/directory') return json(`{${window}}`)(res);
      const body = JSON.stringify({ renewalInfo: new URL('/ri', server.url).href });
      setTimeout(() => json(body)(res), 400);
    });
    const ari = createAriClient({
      fetch,
      directories: [{ ca: 'letsencrypt', directoryUrl: new URL('/directory', server.url) }],
      now: () => NOW,
    });
    try {
      expect((await ari.ask(LE, 'AQ.AQ', 200)).status).toBe('unavailable');
      expect((await ari.ask(LE, 'AQ.AQ')).status).toBe('ok');
    } finally {
      await server.close();
    }
  });

  it('an explanation URL that is not http(s) is no explanation', async () => {
    const window = '"suggestedWindow":{"start":"2026-12-01T00:00:00Z","end":"2026-12-02T00:00:00Z"}';
    for (const url of ['javascript:alert(1)', 'data:text/html,x', 'not a url']) {
      const { server, ari } = await hostileCa(json(`{${window},"explanationURL":${JSON.stringify(url)}}`));
      try {
        expect(await ari.ask(LE, 'AQ.AQ')).toMatchObject({ status: 'ok', explanationUrl: null });
      } finally {
        await server.close();
      }
    }
  });
});

describe('RFC 9773 as it reads', () => {
  /** A CA on loopback whose renewalInfo answers `reply()` (a fresh reply each time), on a movable clock. */
  async function caAnswering(
    reply: () => { status: number; body: string; headers?: Record<string, string> },
  ) {
    let asked = 0;
    const server = await startLoopbackServer((_req, res, url) => {
      if (url.pathname === '/directory') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ renewalInfo: new URL('/ri', server.url).href }));
      }
      asked += 1;
      const { status, body, headers = {} } = reply();
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    });
    let ms = 1_000_000;
    const ari = createAriClient({
      fetch,
      directories: [{ ca: 'letsencrypt', directoryUrl: new URL('/directory', server.url) }],
      now: () => NOW,
      clock: () => ms + performance.now(),
    });
    return { server, ari, asked: () => asked, advance: (by: number) => (ms += by) };
  }
  const windowOf = (start: string, end: string) => `"suggestedWindow":{"start":"${start}","end":"${end}"}`;
  const USUAL = windowOf('2026-12-01T00:00:00Z', '2026-12-02T00:00:00Z');

  it.each([
    ['null', 'null'],
    ['over 2,048 characters', JSON.stringify(`https://ca.example/${'a'.repeat(2_100)}`)],
    ['a number', '42'],
    ['an object', '{"href":"https://ca.example/"}'],
  ])('an explanationURL that is %s never voids the window: ok, no URL', async (_, value) => {
    const ca = await caAnswering(() => ({ status: 200, body: `{${USUAL},"explanationURL":${value}}` }));
    try {
      expect(await ca.ari.ask(LE, 'AQ.AQ')).toMatchObject({ status: 'ok', explanationUrl: null });
    } finally {
      await ca.server.close();
    }
  });

  it.each([
    ['lower-case t and z', '2026-12-01t00:00:00z', '2026-12-02t00:00:00z', '2026-12-01T00:00:00.000Z'],
    [
      'nine fraction digits',
      '2026-12-01T00:00:00.123456789Z',
      '2026-12-02T00:00:00Z',
      '2026-12-01T00:00:00.123Z',
    ],
    ['numeric offsets', '2026-12-01T02:00:00+02:00', '2026-12-01T19:30:00-04:30', '2026-12-01T00:00:00.000Z'],
    ['a leap second', '2016-12-31T23:59:60Z', '2017-01-01T00:00:00Z', '2016-12-31T23:59:59.000Z'],
  ])('RFC 3339 in full (%s)', async (_, start, end, expected) => {
    const ca = await caAnswering(() => ({ status: 200, body: `{${windowOf(start, end)}}` }));
    try {
      const answer = await ca.ari.ask(LE, 'AQ.AQ');
      expect(answer.status).toBe('ok');
      expect(answer.window?.start.toISOString()).toBe(expected);
    } finally {
      await ca.server.close();
    }
  });

  it.each([
    ['an invalid month', windowOf('2026-13-01T00:00:00Z', '2026-12-02T00:00:00Z')],
    ['30 February', windowOf('2026-02-30T00:00:00Z', '2026-12-02T00:00:00Z')],
    ['no offset', windowOf('2026-12-01T00:00:00', '2026-12-02T00:00:00')],
    ['a window ending before it starts', windowOf('2026-12-02T00:00:00Z', '2026-12-01T00:00:00Z')],
  ])('a long-term error (%s) is kept about 6 hours, not asked again after a minute', async (_, window) => {
    const ca = await caAnswering(() => ({ status: 200, body: `{${window}}` }));
    try {
      expect((await ca.ari.ask(LE, 'AQ.AQ')).status).toBe('unavailable');
      ca.advance(ARI_DEFAULT_RETRY_MS - 60_000);
      expect((await ca.ari.ask(LE, 'AQ.AQ')).status).toBe('unavailable');
      expect(ca.asked()).toBe(1);
      ca.advance(120_000);
      await ca.ari.ask(LE, 'AQ.AQ');
      expect(ca.asked()).toBe(2);
    } finally {
      await ca.server.close();
    }
  });

  it('5xx is backed off exponentially (1, 2, 4 minutes…), and an answer resets the backoff', async () => {
    let status = 500;
    const ca = await caAnswering(() =>
      status === 200 ? { status, body: `{${USUAL}}` } : { status, body: '' },
    );
    try {
      const askAfter = async (ms: number) => {
        ca.advance(ms);
        return (await ca.ari.ask(LE, 'AQ.AQ')).status;
      };
      expect(await askAfter(0)).toBe('unavailable'); // 1st failure: kept 1 minute
      expect(await askAfter(ARI_MIN_RETRY_MS + 1)).toBe('unavailable'); // 2nd: kept 2 minutes
      expect(ca.asked()).toBe(2);
      expect(await askAfter(ARI_MIN_RETRY_MS + 1)).toBe('unavailable');
      expect(ca.asked()).toBe(2);
      status = 502;
      expect(await askAfter(ARI_MIN_RETRY_MS)).toBe('unavailable'); // 3rd: kept 4 minutes
      expect(ca.asked()).toBe(3);
      expect(await askAfter(3 * ARI_MIN_RETRY_MS)).toBe('unavailable');
      expect(ca.asked()).toBe(3);
      status = 200;
      expect(await askAfter(ARI_MIN_RETRY_MS + 1)).toBe('ok');
      expect(ca.asked()).toBe(4);
    } finally {
      await ca.server.close();
    }
  });

  it('a 503 without Retry-After backs off too; with one, its Retry-After wins', async () => {
    let headers: Record<string, string> = {};
    const ca = await caAnswering(() => ({ status: 503, body: '{}', headers }));
    try {
      await ca.ari.ask(LE, 'AQ.AQ');
      ca.advance(ARI_MIN_RETRY_MS + 1);
      await ca.ari.ask(LE, 'AQ.AQ');
      ca.advance(ARI_MIN_RETRY_MS + 1);
      await ca.ari.ask(LE, 'AQ.AQ');
      expect(ca.asked()).toBe(2);
      headers = { 'retry-after': '600' };
      ca.advance(ARI_MIN_RETRY_MS);
      await ca.ari.ask(LE, 'AQ.AQ');
      expect(ca.asked()).toBe(3);
      ca.advance(600_001);
      await ca.ari.ask(LE, 'AQ.AQ');
      expect(ca.asked()).toBe(4);
    } finally {
      await ca.server.close();
    }
  });
});
