import { describe, expect, it } from 'vitest';
import { composeSiteHealth } from '../../../../src/checks/site-health/compose.ts';
import { createSiteHealthRunner } from '../../../../src/checks/site-health/run.ts';
import { certResult, DOMAIN, dnsResult, expiryResult, NOW } from './fixtures.ts';

describe('the site-health runner', () => {
  it("starts DNS and registration once the cert check's request is written, as Node's fetch writes it on a reused connection", async () => {
    const events: string[] = [];
    const run = createSiteHealthRunner({
      cert: async () => {
        events.push('cert started');
        // undici writes a request on an idle keep-alive connection from a `setImmediate`.
        await new Promise((resolve) => setImmediate(resolve));
        events.push('cert request written');
        return { type: 'result', result: certResult() };
      },
      dns: async () => {
        events.push('dns started');
        return { type: 'result', result: dnsResult() };
      },
      expiry: async () => {
        events.push('expiry started');
        return { type: 'result', result: expiryResult() };
      },
      now: () => NOW,
    });
    const outcome = await run(DOMAIN);
    expect(events).toEqual(['cert started', 'cert request written', 'dns started', 'expiry started']);
    // The bundle is the same composition as ever.
    expect(outcome).toEqual(
      composeSiteHealth({
        domain: DOMAIN,
        cert: { type: 'result', result: certResult() },
        dns: { type: 'result', result: dnsResult() },
        expiry: { type: 'result', result: expiryResult() },
        now: NOW,
      }),
    );
  });

  it('a cert check that throws at once rejects the bundle, the other checks still started, nothing left unhandled', async () => {
    let started = 0;
    const run = createSiteHealthRunner({
      cert: () => Promise.reject(new Error('cert broke')),
      dns: async () => {
        started += 1;
        return { type: 'result', result: dnsResult() };
      },
      expiry: async () => {
        started += 1;
        return { type: 'result', result: expiryResult() };
      },
      now: () => NOW,
    });
    await expect(run(DOMAIN)).rejects.toThrow('cert broke');
    // They start two turns after the cert check, as when it succeeds.
    for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(2);
  });
});
