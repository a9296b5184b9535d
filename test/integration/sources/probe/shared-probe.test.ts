/** Shared probes against the loopback HTTPS site: one connection for concurrent callers, brief reuse. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { succeed } from '../../../../src/sources/failure.ts';
import { createProbe } from '../../../../src/sources/probe/probe.ts';
import { REUSED_BYTES_MAX, shareProbes } from '../../../../src/sources/probe/shared.ts';
import type { ProbeAnswer } from '../../../../src/sources/probe/verdict.ts';
import { type HttpsSite, startHttpsSite } from '../../../world/https-site.ts';

const DOMAIN = 'corner-bistro.com';
let site: HttpsSite;

beforeAll(async () => {
  site = await startHttpsSite(
    new Map([[DOMAIN, { domain: DOMAIN, about: 'answers 200', https: { mode: 'ok' } }]]),
  );
});
afterAll(() => site.close());

function sharedLoopbackProbe(reuseMs: number, now?: () => number) {
  const probe = createProbe({
    resolve: async () => succeed(['127.0.0.1']),
    port: site.port,
    allowPrivate: true,
    ca: site.caPem,
  });
  return shareProbes(probe, { reuseMs, ...(now ? { now } : {}) });
}

describe('shared live probe', () => {
  it('answers 50 concurrent probes of one domain with one connection, then reuses the verdict as cached', async () => {
    const probe = sharedLoopbackProbe(60_000);
    const before = site.servernames.length;
    const answers = await Promise.all(Array.from({ length: 50 }, () => probe(DOMAIN)));
    expect(site.servernames.length - before).toBe(1);
    expect(answers.every((answer) => answer.ok && answer.http_status === 200 && !answer.cached)).toBe(true);
    const again = await probe(DOMAIN);
    expect(again).toMatchObject({ ok: true, http_status: 200, cached: true });
    expect(site.servernames.length - before).toBe(1);
  });

  it('probes again once the reuse window has passed', async () => {
    let clock = 1_000;
    const probe = sharedLoopbackProbe(30, () => clock);
    const before = site.servernames.length;
    await probe(DOMAIN);
    clock += 29;
    expect(await probe(DOMAIN)).toMatchObject({ ok: true, cached: true });
    clock += 2;
    expect(await probe(DOMAIN)).toMatchObject({ ok: true, cached: false });
    expect(site.servernames.length - before).toBe(2);
  });

  it('keeps reused answers within a byte bound, whatever size of certificate the sites serve', async () => {
    const leafBytes = 1024 * 1024;
    const probed: string[] = [];
    const bigLeaves = async (domain: string): Promise<ProbeAnswer> => {
      probed.push(domain);
      return { ok: true, http_status: 200, ms: 1, error: null, leaf: new Uint8Array(leafBytes) };
    };
    const probe = shareProbes(bigLeaves, { reuseMs: 60_000 });
    const domains = Array.from({ length: 2 * (REUSED_BYTES_MAX / leafBytes) }, (_, i) => `big-${i}.example`);
    for (const domain of domains) await probe(domain);
    // The newest are reused; the oldest were let go to stay within the bound, so they are probed again.
    expect(await probe(domains.at(-1)!)).toMatchObject({ cached: true });
    expect(await probe(domains[0]!)).toMatchObject({ cached: false });
    expect(probed.length).toBe(domains.length + 1);
  });
});
