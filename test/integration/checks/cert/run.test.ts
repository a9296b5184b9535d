import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CertResult, certResultSchema, type LiveProbe } from '../../../../src/checks/cert/result.ts';
import { type CertRunnerDeps, createCertRunner } from '../../../../src/checks/cert/run.ts';
import { createCertificateDer } from '../../../../src/sources/ct/certificate-der.ts';
import type { ValidDomain } from '../../../../src/domain/normalize.ts';
import { createCtCache, createCtLookup } from '../../../../src/sources/ct/lookup.ts';
import { type CertspotterFake, startCertspotter } from '../../../world/certspotter.ts';
import { type CrtshFake, startCrtsh } from '../../../world/crtsh.ts';
import type { Scenario } from '../../../world/scenario.ts';
import crtshBlankThrottled from '../../../world/scenarios/crtsh-blank-throttled.org.ts';
import crtshBlank from '../../../world/scenarios/crtsh-blank.com.ts';
import crtshOutage from '../../../world/scenarios/crtsh-outage.net.ts';
import ctOutage from '../../../world/scenarios/ct-outage.org.ts';
import dualCa from '../../../world/scenarios/dual-ca-store.com.ts';
import healthyShop from '../../../world/scenarios/healthy-shop.com.ts';
import issuerNotFound from '../../../world/scenarios/issuer-not-found.net.ts';
import lapsed from '../../../world/scenarios/lapsed-cert.org.ts';
import noCert from '../../../world/scenarios/no-cert-yet.com.ts';
import slowRenewal from '../../../world/scenarios/slow-renewal.org.ts';
import stalled from '../../../world/scenarios/stalled-renewal.net.ts';
import wildcardCover from '../../../world/scenarios/wildcard-cover.com.ts';
import { NOW } from '../../../unit/checks/cert/fixtures.ts';

const scenarios = new Map<string, Scenario>(
  [
    crtshBlank,
    crtshBlankThrottled,
    crtshOutage,
    ctOutage,
    dualCa,
    healthyShop,
    issuerNotFound,
    lapsed,
    noCert,
    slowRenewal,
    stalled,
    wildcardCover,
  ].map((s) => [s.domain, s]),
);
const PASS: LiveProbe = { ok: true, http_status: 200, ms: 42, error: null };

let crtsh: CrtshFake;
let certspotter: CertspotterFake;
beforeAll(async () => {
  crtsh = await startCrtsh(scenarios, { now: () => NOW });
  certspotter = await startCertspotter(scenarios, { now: () => NOW });
});
afterAll(async () => {
  await crtsh.close();
  await certspotter.close();
});

function runner(probe: CertRunnerDeps['probe'] = async () => PASS) {
  const ct = createCtLookup({
    fetch: (input, init) => fetch(input, init),
    crtshUrl: crtsh.url,
    certspotterUrl: certspotter.url,
    // No case here needs the hedge to fire (a failing crt.sh sends to Cert Spotter at once), so it
    // and the budget are far beyond how long a fake takes on a busy machine.
    hedgeDelayMs: 20_000,
    budgetMs: 25_000,
    cache: createCtCache(),
  });
  return createCertRunner({ ct, probe, now: () => NOW });
}

const target = (domain: string): ValidDomain => ({
  domain,
  unicode: domain,
  registrableDomain: domain.split('.').slice(-2).join('.'),
  publicSuffix: domain.split('.').at(-1) ?? '',
  isApex: domain.split('.').length === 2,
});

async function check(domain: string, probe?: CertRunnerDeps['probe']): Promise<CertResult> {
  const outcome = await runner(probe)(target(domain));
  if (outcome.type !== 'result') throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  // Every result must match the published schema.
  return certResultSchema.parse(outcome.result);
}

const codes = (result: CertResult) => result.findings.map((finding) => finding.code).sort();

describe('cert runner', () => {
  it('healthy renewals: ok, no findings, history and sources reported', async () => {
    const result = await check('healthy-shop.com');
    expect(result.certificate).toMatchObject({ issuer: "Let's Encrypt", days_left: 69, lifetime_days: 90 });
    expect(result.renewal).toMatchObject({ issuances_seen: 6, cadence_days: 59, stall: { status: 'ok' } });
    expect(result.findings).toEqual([]);
    expect(result.history).toHaveLength(6);
    expect(result.ct_source).toBe('crt.sh');
    expect(result.checked_at).toBe('2026-10-20T12:00:00Z');
    expect(result.sources).toEqual([
      expect.objectContaining({ name: 'crt.sh', url: crtsh.url.href, ok: true, cached: false }),
      { name: 'probe', url: 'https://healthy-shop.com/', ok: true, ms: 42, cached: false },
    ]);
  });

  it('stalled fixed-day renewals: stalled, expiring soon, fixed renewal day', async () => {
    const result = await check('stalled-renewal.net');
    expect(result.renewal.stall).toMatchObject({ status: 'stalled', overdue_days: 25 });
    expect(codes(result)).toEqual(['cert.expires_soon', 'cert.fixed_renewal_day', 'cert.renewal_stalled']);
    expect(result.findings.find((f) => f.code === 'cert.renewal_stalled')?.severity).toBe('critical');
  });

  it('overdue with time left: watch', async () => {
    const result = await check('slow-renewal.org');
    expect(result.renewal.stall.status).toBe('watch');
    expect(codes(result)).toEqual(['cert.renewal_watch']);
  });

  it('expired: expired and stalled', async () => {
    const result = await check('lapsed-cert.org');
    expect(result.certificate?.days_left).toBeLessThan(0);
    expect(codes(result)).toEqual(['cert.expired', 'cert.renewal_stalled']);
  });

  it('no certificate: not_found and unknown stall', async () => {
    const result = await check('no-cert-yet.com');
    expect(result.certificate).toBeNull();
    expect(result.renewal).toMatchObject({
      issuances_seen: 0,
      cadence_days: null,
      stall: { status: 'unknown' },
    });
    expect(codes(result)).toEqual(['cert.not_found']);
  });

  it('a subdomain covered by the wildcard certificate', async () => {
    const result = await check('shop.wildcard-cover.com');
    expect(result.certificate).toMatchObject({ wildcard: true, issuer: 'Google Trust Services' });
    expect(result.renewal.stall.status).toBe('ok');
  });

  it('second CA and other-name certificates do not distort the cadence', async () => {
    const result = await check('dual-ca-store.com');
    expect(result.renewal.issuances_seen).toBe(8);
    expect(result.renewal.cadence_days).toBe(59);
    expect(result.renewal.stall.status).toBe('ok');
  });

  it('crt.sh down: Cert Spotter answers, serials read from its cert_der', async () => {
    const result = await check('crtsh-outage.net');
    expect(result.ct_source).toBe('certspotter');
    expect(result.certificate?.serial).toMatch(/^04[0-9a-f]{34}$/);
    expect(result.history[0]?.serial).toBe(result.certificate?.serial);
  });

  it('a failed probe is a finding, not a failure; a throwing probe too', async () => {
    const failed = await check('healthy-shop.com', async () => ({
      ok: false,
      http_status: null,
      ms: 5000,
      error: 'timeout',
    }));
    expect(codes(failed)).toEqual(['probe.failed']);
    expect(failed.findings[0]?.message).toContain('timeout');
    const thrown = await check('healthy-shop.com', async () => {
      throw new Error('bug');
    });
    expect(thrown.live_probe).toMatchObject({ ok: false, error: 'probe_error' });
  });

  it('both CT sources failing: upstream_failed naming each', async () => {
    const outcome = await runner()(target('ct-outage.org'));
    expect(outcome).toEqual({
      type: 'upstream_failed',
      upstreams: [
        expect.objectContaining({ name: 'crt.sh', error: 'http_status' }),
        expect.objectContaining({ name: 'certspotter', error: 'rate_limited' }),
      ],
    });
  });

  it('crt.sh answering [] for a domain with certificates: the certificate from Cert Spotter, not "no certificate"', async () => {
    const result = await check('crtsh-blank.com');
    expect(result.ct_source).toBe('certspotter');
    expect(result.certificate).toMatchObject({ issuer: "Let's Encrypt", days_left: 69 });
    expect(codes(result)).not.toContain('cert.not_found');
  });

  it('crt.sh answering [] unconfirmed (Cert Spotter rate-limited): upstream_failed, so nothing is charged', async () => {
    const outcome = await runner()(target('crtsh-blank-throttled.org'));
    expect(outcome).toEqual({
      type: 'upstream_failed',
      upstreams: [expect.objectContaining({ name: 'certspotter', error: 'rate_limited' })],
    });
  });

  it('an "Issuer Not Found" row valid to 2033 does not hide the expired real certificate', async () => {
    const result = await check('issuer-not-found.net');
    expect(result.certificate).toMatchObject({ issuer: "Let's Encrypt", days_left: -9 });
    expect(result.certificate?.not_after.slice(0, 4)).toBe('2026');
    expect(codes(result)).toContain('cert.expired');
    expect(result.history.every((entry) => entry.issuer === "Let's Encrypt")).toBe(true);
  });

  it('compares a served leaf with CT and never answers it', async () => {
    const issuances = await createCtLookup({
      fetch: (input, init) => fetch(input, init),
      crtshUrl: crtsh.url,
      certspotterUrl: certspotter.url,
    })('healthy-shop.com');
    if (!issuances.result.ok) throw new Error('no CT answer');
    const [newest] = issuances.result.value.issuances;
    const leaf =
      newest &&
      (await createCertificateDer({ fetch: (i, init) => fetch(i, init), crtshUrl: crtsh.url })(newest));
    expect(leaf).toBeInstanceOf(Uint8Array);
    if (!leaf) throw new Error('no leaf');
    const chain = { certificates: [leaf], verified: true };
    const outcome = await runner(async () => ({ ...PASS, chain }))(target('healthy-shop.com'));
    if (outcome.type !== 'result') throw new Error('expected a result');
    expect(outcome.result.live_probe).toEqual({ ...PASS, serves_newest: true });
    const text = JSON.stringify(outcome.result);
    expect(text).not.toContain('certificates');
    expect(text).not.toContain(Buffer.from(leaf).toString('base64').slice(0, 40));
  });

  it.each([
    ['garbage', new Uint8Array([1, 2, 3])],
    ['an HTML page', new Uint8Array(Buffer.from('<html>not a certificate</html>'))],
    ['a megabyte of zeros', new Uint8Array(1024 * 1024)],
    ['an empty array', new Uint8Array()],
  ])(
    'an unreadable served leaf (%s) gives serves_newest null, no finding, no failure',
    async (_name, leaf) => {
      const chain = { certificates: [leaf], verified: true };
      const result = await check('healthy-shop.com', async () => ({ ...PASS, chain }));
      expect(result.live_probe).toEqual({ ...PASS, serves_newest: null });
      expect(result.findings).toEqual([]);
    },
  );

  it("starts the probe once crt.sh's search is written on a reused connection, not before", async () => {
    // The probe's starting work (address lookups, a TLS client) would otherwise hold the write back:
    // Node's fetch writes on an idle keep-alive connection from a later turn of the event loop.
    const written: string[] = [];
    const onWrite = (message: unknown) => {
      const { request } = message as { request: { path: string } };
      written.push(decodeURIComponent(request.path));
    };
    const search = '?Identity=healthy-shop.com&match==&output=json';
    await (await fetch(new URL('/?Identity=warm.invalid&match==&output=json', crtsh.url))).arrayBuffer();
    subscribe('undici:client:sendHeaders', onWrite);
    try {
      let writtenAtProbe: string[] = [];
      await check('healthy-shop.com', async () => {
        writtenAtProbe = [...written];
        return PASS;
      });
      expect(writtenAtProbe.some((path) => path.endsWith(search))).toBe(true);
    } finally {
      unsubscribe('undici:client:sendHeaders', onWrite);
    }
  });

  it('runs the CT lookup and the probe in parallel', async () => {
    // crt.sh answers only once the probe has run, and the probe returns only once crt.sh was asked:
    // the check ends only if both are under way at once (one after the other would never end).
    let releaseCt: () => void = () => {};
    crtsh.hold = new Promise((resolve) => {
      releaseCt = resolve;
    });
    const before = crtsh.requests.length;
    try {
      const result = await check('healthy-shop.com', async () => {
        await crtsh.arrival(() => crtsh.requests.length > before);
        releaseCt();
        return PASS;
      });
      expect(result.live_probe).toMatchObject(PASS);
    } finally {
      crtsh.hold = null;
      releaseCt();
    }
  });
});
