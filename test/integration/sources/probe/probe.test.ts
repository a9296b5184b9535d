/**
 * The Node live probe against the loopback HTTPS site: the suite every probe passes (each site mode,
 * the budget, TLS trust), then what only a pinned socket shows: the target, SNI and Host, and the
 * system trust store through NODE_EXTRA_CA_CERTS.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { succeed } from '../../../../src/sources/failure.ts';
import { connectPinned, type ProbeTarget } from '../../../../src/sources/probe/pinned-request.ts';
import { createProbe, type ProbeDeps } from '../../../../src/sources/probe/probe.ts';
import { readCertificate } from '../../../../src/sources/ct/x509.ts';
import { shareProbes } from '../../../../src/sources/probe/shared.ts';
import { ctCertificates } from '../../../world/ct-certificates.ts';
import { datedCertificate } from '../../../world/ct-history.ts';
import { startHttpsSite, writeCaFile } from '../../../world/https-site.ts';
import freshDeploy from '../../../world/scenarios/fresh-deploy.net.ts';
import originOutage from '../../../world/scenarios/origin-outage.com.ts';
import parkedAlias from '../../../world/scenarios/parked-alias.com.ts';
import { createTestCa } from '../../../world/test-ca.ts';
import { HEALTHY, liveProbeContract, useProbeSite } from './live-probe-contract.ts';

const site = useProbeSite();

/** A probe aimed at the site the way the test world runs it: loopback allowed, the test CA trusted. */
function loopbackProbe(overrides: Partial<ProbeDeps> = {}) {
  return createProbe({
    resolve: async () => succeed(['127.0.0.1']),
    port: site().port,
    allowPrivate: true,
    ca: site().caPem,
    ...overrides,
  });
}

liveProbeContract('createProbe', site, (setup) => createProbe({ ...setup, allowPrivate: true }));

describe('createProbe connection', () => {
  it('sends the domain as SNI and as Host, while connecting to the resolved address', async () => {
    const targets: ProbeTarget[] = [];
    const probe = loopbackProbe({
      connect: (target) => {
        targets.push(target);
        return connectPinned(target);
      },
    });
    expect(await probe(HEALTHY.domain)).toMatchObject({ ok: true, http_status: 200 });
    expect(targets.map(({ address, port, servername }) => ({ address, port, servername }))).toEqual([
      { address: '127.0.0.1', port: site().port, servername: HEALTHY.domain },
    ]);
    expect(site().servernames).toEqual([HEALTHY.domain]);
    expect(site().requests[0]?.headers.host).toBe(`${HEALTHY.domain}:${site().port}`);
  });

  it('trusts the test CA through NODE_EXTRA_CA_CERTS in a child process (no `ca` option)', async () => {
    const caFile = await writeCaFile(site().caPem);
    const probeModule = new URL('../../../../src/sources/probe/probe.ts', import.meta.url).href;
    const script = `
      const { createProbe } = await import(${JSON.stringify(probeModule)});
      const probe = createProbe({ resolve: async () => ({ ok: true, value: ['127.0.0.1'] }), port: ${site().port}, allowPrivate: true });
      process.stdout.write(JSON.stringify(await probe(${JSON.stringify(HEALTHY.domain)})));`;
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile.path },
      });
      expect(JSON.parse(stdout)).toMatchObject({ ok: true, http_status: 200, error: null });
    } finally {
      await caFile.remove();
    }
  });
});

describe('createProbe never rejects', () => {
  it('reports a connector that throws as a network failure', async () => {
    const probe = loopbackProbe({
      connect: () => {
        throw new Error('connector bug');
      },
    });
    expect(await probe(HEALTHY.domain)).toMatchObject({ ok: false, http_status: null, error: 'network' });
    expect(site().requests).toHaveLength(0);
  });
});

describe('createProbe served leaf (Node only)', () => {
  /** A site serving fresh-deploy.net's newest CT certificate, whose bytes the test knows. */
  async function siteServingCt() {
    const ca = await createTestCa();
    const certificates = ctCertificates(ca);
    const now = new Date();
    const scenarios = new Map([[freshDeploy.domain, freshDeploy]]);
    const ctSite = await startHttpsSite(scenarios, { ca, certificates, now: () => now });
    const [newest] = freshDeploy.ct?.certificates ?? [];
    if (!newest) throw new Error('fresh-deploy.net has no certificate');
    const served = await certificates.serving(datedCertificate(newest, now));
    const probe = createProbe({
      resolve: async () => succeed(['127.0.0.1']),
      port: ctSite.port,
      allowPrivate: true,
      ca: ctSite.caPem,
    });
    return { ctSite, probe, der: served.der };
  }

  it('answers the chain the site served, leaf first, beside a passing verdict', async () => {
    const { ctSite, probe, der } = await siteServingCt();
    try {
      const answer = await probe(freshDeploy.domain);
      expect(answer).toMatchObject({ ok: true, http_status: 200, error: null });
      expect(answer.chain?.verified).toBe(true);
      expect(answer.chain?.certificates[0]).toEqual(der);
      expect(readCertificate(answer.chain?.certificates[0] ?? new Uint8Array())?.serial).toBe(
        'd2c1b0a9f8e7d6c5b4a39281706f5e4d',
      );
    } finally {
      await ctSite.close();
    }
  });

  it('shares the chain with concurrent and reused answers', async () => {
    const { ctSite, probe, der } = await siteServingCt();
    try {
      const shared = shareProbes(probe, { reuseMs: 60_000 });
      const answers = await Promise.all([shared(freshDeploy.domain), shared(freshDeploy.domain)]);
      const again = await shared(freshDeploy.domain);
      expect(again.cached).toBe(true);
      for (const answer of [...answers, again]) expect(answer.chain?.certificates[0]).toEqual(der);
      expect(ctSite.servernames).toHaveLength(1);
    } finally {
      await ctSite.close();
    }
  });

  it('answers the unverified chain when the certificate was refused (wrong name, untrusted), and sends no request', async () => {
    const before = site().requests.length;
    const mismatch = await loopbackProbe()(parkedAlias.domain);
    expect(mismatch).toMatchObject({ ok: false, error: 'tls_hostname_mismatch' });
    expect(mismatch.chain?.verified).toBe(false);
    expect(mismatch.chain?.certificates.length).toBeGreaterThanOrEqual(1);
    const untrusted = await loopbackProbe({ ca: undefined })(HEALTHY.domain);
    expect(untrusted).toMatchObject({ ok: false, error: 'tls_untrusted' });
    expect(untrusted.chain?.verified).toBe(false);
    expect(site().requests.length).toBe(before);
  });

  it('answers no chain when the failure is not about the certificate (reset before TLS, hang)', async () => {
    const refused = await loopbackProbe({ port: 1 })(HEALTHY.domain);
    expect(refused).toMatchObject({ ok: false, error: 'refused' });
    expect(refused.chain ?? null).toBeNull();
  });

  it('still answers the chain when the site fails with a 5xx after a verified handshake', async () => {
    const answer = await loopbackProbe()(originOutage.domain);
    expect(answer).toMatchObject({ ok: false, http_status: 500, error: 'http_error' });
    expect(answer.chain?.verified).toBe(true);
    expect(answer.chain?.certificates[0]).toBeInstanceOf(Uint8Array);
  });
});
