import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Breaker, createBreaker } from '../../../src/ops/breaker.ts';
import { fetchCertspotterIssuances } from '../../../src/sources/ct/certspotter.ts';
import { createCtCache, createCtLookup } from '../../../src/sources/ct/lookup.ts';
import { createDohClient } from '../../../src/sources/doh/client.ts';
import { type CertspotterFake, startCertspotter } from '../../world/certspotter.ts';
import { type CrtshFake, startCrtsh } from '../../world/crtsh.ts';
import { startDnsWorld, type DnsWorld } from '../sources/doh/world.ts';
import { ctScenarios, loopbackFetch, NOW } from '../sources/ct/world.ts';

const HEDGE_MS = 1_000;
const CERTSPOTTER_MS = 150;
const COOL_DOWN_MS = 30_000;

/** A breaker opening after 2 failures, on a clock the test moves. */
function testBreaker(): { breaker: Breaker; advance(ms: number): void } {
  let clock = 0;
  const breaker = createBreaker({ failures: 2, coolDownMs: COOL_DOWN_MS, now: () => clock });
  return { breaker, advance: (ms) => (clock += ms) };
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

describe('circuit breaker', () => {
  it('opens after consecutive failures, admits one half-open probe after the cool-down, closes on success', () => {
    const { breaker, advance } = testBreaker();
    breaker.failure();
    expect(breaker.state).toBe('closed');
    breaker.success();
    breaker.failure();
    expect(breaker.state).toBe('closed');
    breaker.failure();
    expect(breaker.state).toBe('open');
    expect(breaker.allow()).toBe(false);
    advance(COOL_DOWN_MS);
    expect(breaker.state).toBe('half_open');
    expect(breaker.allow()).toBe(true);
    expect(breaker.allow()).toBe(false); // one probe at a time
    breaker.failure();
    expect(breaker.state).toBe('open'); // a failed probe re-opens at once
    advance(COOL_DOWN_MS);
    expect(breaker.allow()).toBe(true);
    breaker.success();
    expect(breaker.state).toBe('closed');
    expect(breaker.allow()).toBe(true);
  });
});

describe('crt.sh breaker in the hedged CT lookup', () => {
  let crtsh: CrtshFake;
  let certspotter: CertspotterFake;
  beforeAll(async () => {
    crtsh = await startCrtsh(ctScenarios(), { now: () => NOW });
    certspotter = await startCertspotter(ctScenarios(), { now: () => NOW });
  });
  afterAll(async () => {
    await crtsh.close();
    await certspotter.close();
  });

  it('crt.sh hanging: once open, Cert Spotter is asked at once (no hedge wait); recovers with crt.sh', async () => {
    const { breaker, advance } = testBreaker();
    // A fresh cache per call, so every call reaches the upstreams.
    const lookup = () =>
      createCtLookup({
        fetch: loopbackFetch,
        crtshUrl: crtsh.url,
        certspotterUrl: certspotter.url,
        hedgeDelayMs: HEDGE_MS,
        budgetMs: 4_000,
        cache: createCtCache(),
        crtshBreaker: breaker,
      })('healthy-shop.com');
    crtsh.mode = 'hang';
    certspotter.delayMs = CERTSPOTTER_MS;

    for (let i = 0; i < 2; i += 1) {
      const { value, ms } = await timed(lookup);
      expect(value.result.ok && value.result.value.source).toBe('certspotter');
      expect(ms).toBeGreaterThanOrEqual(HEDGE_MS + CERTSPOTTER_MS - 5);
    }
    expect(breaker.state).toBe('open');

    // Cert Spotter's own latency for this domain (its fake pages the answer, each page delayed).
    const alone = await timed(() =>
      fetchCertspotterIssuances('healthy-shop.com', {
        fetch: loopbackFetch,
        baseUrl: certspotter.url,
        timeoutMs: 4_000,
      }),
    );
    expect(alone.value.ok).toBe(true);
    const crtshAsked = crtsh.requests.length;
    const { value, ms } = await timed(lookup);
    expect(value.result.ok && value.result.value.source).toBe('certspotter');
    // Cert Spotter's latency plus scheduling jitter (the suite runs in parallel on 2 cores, where
    // 150 ms of slack proved too little); the hedge wait alone would add HEDGE_MS.
    expect(ms).toBeLessThan(alone.ms + HEDGE_MS / 2);
    expect(ms).toBeLessThan(HEDGE_MS);
    expect(crtsh.requests.length).toBe(crtshAsked);
    expect(value.calls).toContainEqual({
      name: 'crt.sh',
      url: crtsh.url.href,
      ok: false,
      ms: 0,
      cached: false,
      skipped: true,
    });

    crtsh.mode = null;
    advance(COOL_DOWN_MS);
    const probe = await lookup();
    expect(probe.result.ok && probe.result.value.source).toBe('crt.sh');
    expect(breaker.state).toBe('closed');
    certspotter.delayMs = 0;
  });

  it('crt.sh skipped and Cert Spotter failing: a 502 naming crt.sh as circuit_open', async () => {
    const { breaker } = testBreaker();
    breaker.failure();
    breaker.failure();
    certspotter.mode = 'server_error';
    const { result, calls } = await createCtLookup({
      fetch: loopbackFetch,
      crtshUrl: crtsh.url,
      certspotterUrl: certspotter.url,
      crtshBreaker: breaker,
    })('healthy-shop.com');
    certspotter.mode = null;
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.failure.failures.map((f) => [f.source, f.code])).toEqual([
        ['crt.sh', 'circuit_open'],
        ['certspotter', 'http_status'],
      ]);
    }
    expect(calls.find((call) => call.name === 'crt.sh')?.skipped).toBe(true);
  });
});

describe('primary resolver breaker in the DoH client', () => {
  let world: DnsWorld;
  beforeAll(async () => {
    world = await startDnsWorld();
  });
  afterAll(() => world.close());
  afterEach(() => {
    world.primary.mode = null;
  });

  it('primary hanging: once open, questions go straight to the fallback; a probe closes it again', async () => {
    const { breaker, advance } = testBreaker();
    const client = () =>
      createDohClient({
        fetch: loopbackFetch,
        primaryUrl: world.primary.endpoint,
        fallbackUrl: world.fallback.endpoint,
        timeoutMs: 2_000,
        hedgeMs: 300,
        primaryBreaker: breaker,
      });
    world.primary.mode = 'hang';
    for (let i = 0; i < 2; i += 1) {
      const { ms } = await timed(() => client().query('healthy-shop.com', 'A'));
      expect(ms).toBeGreaterThanOrEqual(295);
    }
    expect(breaker.state).toBe('open');
    const { value, ms } = await timed(() => client().query('healthy-shop.com', 'A'));
    expect(ms).toBeLessThan(150);
    expect(value.ok && value.value.attempts).toEqual([
      { resolver: world.primary.endpoint.href, ok: false, ms: 0, skipped: true },
      expect.objectContaining({ resolver: world.fallback.endpoint.href, ok: true }),
    ]);

    world.primary.mode = null;
    advance(COOL_DOWN_MS);
    const probe = await client().query('healthy-shop.com', 'A');
    expect(probe.ok && probe.value.resolver).toBe(world.primary.endpoint.href);
    expect(breaker.state).toBe('closed');
  });
});
