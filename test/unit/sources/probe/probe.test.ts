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
import { writeCaFile } from '../../../world/https-site.ts';
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
