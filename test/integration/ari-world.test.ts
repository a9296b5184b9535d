/**
 * ARI in the cert verdict against the closed world: the CT fakes' real certificates, the loopback
 * Let's Encrypt and Google Trust Services, every verdict, the failure modes, the cache and the
 * CertID sources (crt.sh's bytes once per issuer, the served leaf before CT answers).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CertResult, certResultSchema } from '../../src/checks/cert/result.ts';
import { createCertRunner } from '../../src/checks/cert/run.ts';
import { createRunners } from '../../src/runners.ts';
import { loadConfig } from '../../src/config.ts';
import { normalizeDomain, type ValidDomain } from '../../src/domain/normalize.ts';
import { createAriLookup } from '../../src/sources/ari/lookup.ts';
import { createAriClient } from '../../src/sources/ari/renewal-info.ts';
import { createCertificateDer } from '../../src/sources/ct/certificate-der.ts';
import { createCtLookup } from '../../src/sources/ct/lookup.ts';
import { nodeReach } from '../../src/sources/node-reach.ts';
import { type AcmeCaFake, newestCertificate, servedCertificate, worldCertId } from '../world/acme.ts';
import { startWorld, type World } from '../world/index.ts';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterEach(() => world.reset());
afterAll(() => world?.close());

const valid = (name: string): ValidDomain => {
  const checked = normalizeDomain(name);
  if (!checked.valid) throw new Error(`${name} must be valid`);
  return checked;
};

/** Fresh runners (no cache from an earlier case) as the service wires them. */
function runners(env: Record<string, string> = {}) {
  return createRunners(loadConfig({ ...world.env, ...env }), {
    fetch: globalThis.fetch,
    now: () => new Date(),
    reach: nodeReach(world.site.caPem),
  });
}

async function checkCert(domain: string, run = runners()): Promise<CertResult> {
  const outcome = await run.cert(valid(domain));
  if (outcome.type !== 'result') throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  return certResultSchema.parse(outcome.result);
}

const codes = (result: CertResult) => result.findings.map((f) => f.code).sort();
const renewalInfoRequests = (fake: AcmeCaFake) =>
  fake.requests.filter((r) => r.url.pathname !== '/directory');
const downloads = () => world.crtsh.requests.filter((r) => r.url.searchParams.has('d'));

describe("the cert verdict from the CA's window", () => {
  it("window ahead: ok on basis ari, renew_by = the window's end, the CertID of the newest certificate", async () => {
    const result = await checkCert('healthy-shop.com');
    expect(result.renewal.stall).toMatchObject({ status: 'ok', basis: 'ari' });
    expect(result.renewal.ari).toMatchObject({ status: 'ok', ca: 'letsencrypt', explanation_url: null });
    expect(result.renewal.renew_by).toBe(result.renewal.ari?.window?.end);
    expect(result.renewal.ari?.cert_id).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(result.sources.find((s) => s.name === 'ari')).toMatchObject({ ok: true, cached: false });
    expect(codes(result)).not.toContain('cert.renewal_watch');
  });

  it('window open, no successor: watch, as information', async () => {
    const result = await checkCert('renewing-florist.com');
    expect(result.renewal.stall).toMatchObject({ status: 'watch', basis: 'ari' });
    expect(result.renewal.stall.reason).toMatch(/^In the CA's renewal window .*, not renewed yet/);
    expect(result.findings.find((f) => f.code === 'cert.renewal_watch')?.severity).toBe('info');
  });

  it('window ended, no successor: stalled on basis ari, cert.ari_window_passed beside cert.renewal_stalled', async () => {
    const result = await checkCert('missed-window.net');
    expect(result.renewal.stall).toMatchObject({ status: 'stalled', basis: 'ari' });
    expect(result.renewal.stall.overdue_days).toBeGreaterThanOrEqual(4);
    expect(codes(result)).toEqual(['cert.ari_window_passed', 'cert.renewal_stalled', 'probe.failed']);
    // Its renewals landed inside the CA's windows at varying times: they follow ARI.
    expect(result.renewal.follows_ari_window).toBe(true);
    // Without ARI the cadence calls the same history only a watch (24 days are left).
    const cadence = await checkCert('missed-window.net', runners({ ACME_DIRECTORIES: '' }));
    expect(cadence.renewal.stall).toMatchObject({ status: 'watch', basis: 'cadence' });
    expect(cadence.renewal.ari).toBeNull();
  });

  it('the CA asked for early renewal: the finding carries its explanation URL', async () => {
    const result = await checkCert('drill-bookshop.org');
    const finding = result.findings.find((f) => f.code === 'cert.ca_requested_early_renewal');
    expect(finding?.evidence).toBe('https://community.letsencrypt.org/t/2026-03-19-revocation-drill/241234');
    expect(finding?.message).toMatch(/^The CA asked for early renewal/);
    expect(result.renewal.ari?.explanation_url).toBe(finding?.evidence);
    expect(result.renewal.stall).toMatchObject({ status: 'ok', basis: 'ari' });
  });

  it('Google Trust Services: its own renewalInfo, and its empty explanationURL is null', async () => {
    const result = await checkCert('cloud-bakery.dev');
    expect(result.renewal.ari).toMatchObject({ status: 'ok', ca: 'google', explanation_url: null });
    expect(renewalInfoRequests(world.acme.google).at(-1)?.url.pathname).toMatch(/^\/renewal-info\//);
  });
});

describe('credentials never reach an answer', () => {
  it('ACME_DIRECTORIES with user:pass: the CA is still asked, and no source URL carries them', async () => {
    const withCredentials = (url: URL) => url.href.replace('://', '://operator:s3cret-pass@');
    const result = await checkCert(
      'healthy-shop.com',
      runners({
        ACME_DIRECTORIES: `letsencrypt=${withCredentials(world.acme.letsencrypt.directoryUrl)},google=${withCredentials(world.acme.google.directoryUrl)}`,
      }),
    );
    expect(result.renewal.ari).toMatchObject({ status: 'ok', ca: 'letsencrypt' });
    const text = JSON.stringify(result);
    expect(text).not.toMatch(/operator|s3cret/);
    expect(result.sources.find((s) => s.name === 'ari')?.url).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/acme\/renewal-info$/,
    );
  });
});

describe('ARI never makes the check worse', () => {
  it.each([
    ['unknown-to-ca.com', 'not_found'],
    ['ca-throttled.org', 'unavailable'],
    ['ca-outage.net', 'unavailable'],
  ])('%s: status %s, the cadence decides, still a result', async (domain, status) => {
    const result = await checkCert(domain);
    expect(result.renewal.ari?.status).toBe(status);
    expect(result.renewal.stall.basis).toBe('cadence');
    expect(result.renewal.renew_by).not.toBeNull();
  });

  it('a hanging CA: unavailable within the 2 s bound', async () => {
    const started = performance.now();
    const result = await checkCert('ca-hang.com');
    expect(performance.now() - started).toBeLessThan(3_500);
    expect(result.renewal.ari).toMatchObject({ status: 'unavailable', window: null });
    expect(result.renewal.stall.basis).toBe('cadence');
  });

  it('an expired certificate is not asked', async () => {
    const before = renewalInfoRequests(world.acme.letsencrypt).length;
    const result = await checkCert('lapsed-cert.org');
    expect(result.renewal.ari).toMatchObject({ status: 'not_found', checked_at: null, window: null });
    expect(renewalInfoRequests(world.acme.letsencrypt)).toHaveLength(before);
  });

  it('ACME_DIRECTORIES empty: renewal.ari is null and no CA is asked', async () => {
    const before = world.acme.letsencrypt.requests.length;
    const result = await checkCert('healthy-shop.com', runners({ ACME_DIRECTORIES: '' }));
    expect(result.renewal.ari).toBeNull();
    expect(result.renewal.stall.basis).toBe('cadence');
    expect(world.acme.letsencrypt.requests).toHaveLength(before);
  });
});

describe('where the CertID comes from, and the cache', () => {
  it("crt.sh's bytes once per issuer, then CT's serial with the remembered key; answers cached per CertID", async () => {
    const run = runners();
    const downloadsBefore = downloads().length;
    const asked = renewalInfoRequests(world.acme.letsencrypt).length;
    const first = await checkCert('renewing-florist.com', run);
    expect(downloads().length - downloadsBefore).toBe(1);
    // Another certificate of the same intermediate (R11): no download, the key is remembered.
    const second = await checkCert('unknown-to-ca.com', run);
    expect(downloads().length - downloadsBefore).toBe(1);
    expect(first.renewal.ari?.cert_id?.split('.')[0]).toBe(second.renewal.ari?.cert_id?.split('.')[0]);
    // The same certificate again: the kept answer, no request.
    const again = await checkCert('unknown-to-ca.com', run);
    expect(again.sources.find((s) => s.name === 'ari')).toMatchObject({ cached: true, ms: 0 });
    expect(renewalInfoRequests(world.acme.letsencrypt).length - asked).toBe(2);
  });

  it("the CertID is the newest certificate's, as the CA computes it from the certificate", async () => {
    const result = await checkCert('healthy-shop.com');
    const newest = newestCertificate(world.scenarios, 'healthy-shop.com');
    expect(result.certificate?.serial).toBe(newest.serial);
    expect(result.renewal.ari?.cert_id).toBe(await worldCertId(world.certificates, newest));
  });

  it("on Node the world's site serves the newest certificate: its answer is used, no bytes are downloaded", async () => {
    const downloadsBefore = downloads().length;
    const result = await checkCert('healthy-shop.com');
    expect(result.live_probe).toMatchObject({ ok: true, serves_newest: true });
    expect(result.renewal.ari?.cert_id).toBe(
      await worldCertId(world.certificates, newestCertificate(world.scenarios, 'healthy-shop.com')),
    );
    expect(downloads().length - downloadsBefore).toBe(0);
  });

  it('a slow site does not hold the CA back: when CT alone gives the CertID, the CA is asked before the probe ends', async () => {
    const config = loadConfig(world.env);
    const ct = createCtLookup({
      fetch: globalThis.fetch,
      crtshUrl: config.upstreams.crtshUrl,
      certspotterUrl: config.upstreams.certspotterUrl,
    });
    const freshClient = () =>
      createAriClient({
        fetch: globalThis.fetch,
        directories: config.upstreams.acmeDirectories,
        now: () => new Date(),
      });
    // One lookup (it remembers the issuer's key); its answers' cache is replaced between checks.
    let client = freshClient();
    const ari = createAriLookup({
      client: { ask: (...args) => client.ask(...args), supports: (issuer) => client.supports(issuer) },
      certificateDer: createCertificateDer({ fetch: globalThis.fetch, crtshUrl: config.upstreams.crtshUrl }),
    });
    const pass = { ok: true, http_status: 200, ms: 1, error: null };
    const learn = createCertRunner({ ct, ari, now: () => new Date(), probe: async () => pass });
    expect((await learn(valid('healthy-shop.com'))).type).toBe('result');
    client = freshClient();
    const asked = renewalInfoRequests(world.acme.letsencrypt).length;
    let askedWhileProbing = -1;
    const slow = createCertRunner({
      ct,
      ari,
      now: () => new Date(),
      probe: async () => {
        // The probe answers only once the CA has been asked: ARI does not wait for the probe.
        await world.acme.letsencrypt.arrival(
          () => renewalInfoRequests(world.acme.letsencrypt).length > asked,
        );
        askedWhileProbing = renewalInfoRequests(world.acme.letsencrypt).length - asked;
        return pass;
      },
    });
    const outcome = await slow(valid('healthy-shop.com'));
    if (outcome.type !== 'result') throw new Error('expected a result');
    expect(outcome.result.renewal.ari).toMatchObject({ status: 'ok', ca: 'letsencrypt' });
    expect(askedWhileProbing).toBe(1);
  });

  it('the served leaf is asked about before CT answers, and that answer is used when it is the newest', async () => {
    const config = loadConfig(world.env);
    const newest = newestCertificate(world.scenarios, 'healthy-shop.com');
    // The site's leaf: the newest certificate's bytes, as the world's CA issued them.
    const der = await world.certificates.der(newest, 'certificate');
    const ct = createCtLookup({
      fetch: globalThis.fetch,
      crtshUrl: config.upstreams.crtshUrl,
      certspotterUrl: config.upstreams.certspotterUrl,
    });
    const ari = createAriLookup({
      client: createAriClient({
        fetch: globalThis.fetch,
        directories: config.upstreams.acmeDirectories,
        now: () => new Date(),
      }),
    });
    const run = createCertRunner({
      ct,
      ari,
      now: () => new Date(),
      probe: async () => ({
        ...{ ok: true, http_status: 200, ms: 1, error: null },
        chain: { certificates: [der], verified: true },
      }),
    });
    const asked = renewalInfoRequests(world.acme.letsencrypt).length;
    const downloadsBefore = downloads().length;
    const certspotterBefore = world.certspotter.requests.length;
    let releaseCt: () => void = () => {};
    world.crtsh.hold = new Promise((resolve) => {
      releaseCt = resolve;
    });
    const pending = run(valid('healthy-shop.com'));
    // crt.sh answers nothing until released: the CA is asked about the served leaf before CT answers.
    await world.acme.letsencrypt.arrival(() => renewalInfoRequests(world.acme.letsencrypt).length > asked);
    expect(renewalInfoRequests(world.acme.letsencrypt).length - asked).toBe(1);
    expect(world.certspotter.requests.length).toBe(certspotterBefore); // no CT answer from the fallback either
    world.crtsh.hold = null;
    releaseCt();
    const outcome = await pending;
    if (outcome.type !== 'result') throw new Error('expected a result');
    expect(outcome.result.renewal.ari).toMatchObject({ status: 'ok', ca: 'letsencrypt' });
    expect(outcome.result.renewal.ari?.cert_id).toBe(await worldCertId(world.certificates, newest));
    expect(renewalInfoRequests(world.acme.letsencrypt).length - asked).toBe(1);
    expect(downloads().length - downloadsBefore).toBe(0);
  });
});

describe('the served certificate is judged (Node reads the leaf)', () => {
  it("a CDN's backup beside a healthy served certificate: the served one judged, the backup beside it", async () => {
    const result = await checkCert('cdn-backup-healthy.com');
    expect(result.judged.source).toBe('served');
    expect(result.certificate).toMatchObject({ issuer: "Let's Encrypt", days_left: 69 });
    expect(result.renewal.ari).toMatchObject({ status: 'ok', ca: 'letsencrypt' });
    expect(result.renewal.stall).toMatchObject({ status: 'ok', basis: 'ari' });
    expect(result.other_ca_certificate).toMatchObject({
      issuer: 'Google Trust Services',
      relation: 'backup',
      days_left: 86,
    });
    expect(result.live_probe).toMatchObject({ ok: true, serves_newest: null });
    expect(codes(result)).toEqual([]);
  });

  it("a CDN's backup must not hide the served certificate's stall and expiry", async () => {
    const result = await checkCert('cdn-backup-stalled.net');
    expect(result.judged.source).toBe('served');
    expect(result.certificate).toMatchObject({ issuer: "Let's Encrypt", days_left: 4 });
    expect(result.renewal.ari).toMatchObject({ status: 'ok', ca: 'letsencrypt' });
    expect(result.renewal.stall).toMatchObject({ status: 'stalled', basis: 'ari' });
    expect(result.other_ca_certificate).toMatchObject({
      issuer: 'Google Trust Services',
      relation: 'backup',
    });
    expect(codes(result)).toEqual(['cert.ari_window_passed', 'cert.expires_soon', 'cert.renewal_stalled']);
    expect(result.findings.find((f) => f.code === 'cert.expires_soon')).toMatchObject({
      severity: 'critical',
      message: expect.stringMatching(/^The certificate the site serves expires in 4 days/),
    });
    // renew_by is the served certificate's window end, before its own expiry.
    expect(Date.parse(result.renewal.renew_by ?? '')).toBeLessThan(
      Date.parse(result.certificate?.not_after ?? ''),
    );
  });

  it('a move to another CA, deployed: the new CA judged, the abandoned series not alarmed', async () => {
    const result = await checkCert('moved-to-gts.org');
    expect(result.judged.source).toBe('served');
    expect(result.certificate).toMatchObject({ issuer: 'Google Trust Services', days_left: 79 });
    expect(result.renewal.ari).toMatchObject({ status: 'ok', ca: 'google' });
    expect(result.renewal.stall).toMatchObject({ status: 'ok', basis: 'ari' });
    expect(result.other_ca_certificate).toBeNull();
    expect(result.live_probe).toMatchObject({ ok: true, serves_newest: true });
    expect(codes(result)).toEqual([]);
  });

  it('a move to another CA not deployed: the served stall and expiry, the new certificate named beside', async () => {
    const result = await checkCert('undeployed-move.net');
    expect(result.judged.source).toBe('served');
    expect(result.certificate).toMatchObject({ issuer: "Let's Encrypt", days_left: 4 });
    expect(result.renewal.stall).toMatchObject({ status: 'stalled', basis: 'ari' });
    expect(result.other_ca_certificate).toMatchObject({
      issuer: 'Google Trust Services',
      relation: 'move_not_deployed',
      days_left: 86,
    });
    expect(codes(result)).toEqual([
      'cert.ari_window_passed',
      'cert.expires_soon',
      'cert.other_ca_not_served',
      'cert.renewal_stalled',
    ]);
    // Asked about the served certificate, not about CT's newest.
    expect(result.renewal.ari?.cert_id).toBe(
      await worldCertId(world.certificates, servedCertificate(world.scenarios, 'undeployed-move.net')),
    );
  });
});
