import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CT_CACHE_TTL_MS, createCtCache, createCtLookup } from '../../../../src/sources/ct/lookup.ts';
import { type CertspotterFake, startCertspotter } from '../../../world/certspotter.ts';
import { type CrtshFake, startCrtsh } from '../../../world/crtsh.ts';
import crtshBlankThrottled from '../../../world/scenarios/crtsh-blank-throttled.org.ts';
import crtshBlank from '../../../world/scenarios/crtsh-blank.com.ts';
import lapsed from '../../../world/scenarios/lapsed-cert.org.ts';
import { ctScenarios, loopbackFetch, NOW } from './world.ts';

const HEDGE_MS = 200;
let crtsh: CrtshFake;
let certspotter: CertspotterFake;

beforeAll(async () => {
  const scenarios = ctScenarios(crtshBlank, crtshBlankThrottled, lapsed);
  crtsh = await startCrtsh(scenarios, { now: () => NOW });
  certspotter = await startCertspotter(scenarios, { now: () => NOW });
});
afterAll(async () => {
  await crtsh.close();
  await certspotter.close();
});
afterEach(() => {
  vi.useRealTimers();
  crtsh.hold = null;
  crtsh.mode = null;
  certspotter.mode = null;
  crtsh.delayMs = 0;
  certspotter.delayMs = 0;
  crtsh.requests.length = 0;
  certspotter.requests.length = 0;
});

const newLookup = (
  overrides: {
    budgetMs?: number;
    hedgeDelayMs?: number;
    now?: () => number;
    fetch?: typeof loopbackFetch;
  } = {},
) =>
  createCtLookup({
    fetch: overrides.fetch ?? loopbackFetch,
    crtshUrl: crtsh.url,
    certspotterUrl: certspotter.url,
    hedgeDelayMs: overrides.hedgeDelayMs ?? HEDGE_MS,
    budgetMs: overrides.budgetMs ?? 2_000,
    cache: createCtCache(overrides.now),
  });

/**
 * Holds the clock of the hedge and of the budget (and of the fakes' delays): time passes only when the
 * test moves it, so what the lookup does before and after a delay does not depend on the machine.
 */
function holdTheClock() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
}

/** The aggregators the lookup asked, in order, as it called fetch. */
function askedFetch() {
  const asked: string[] = [];
  const fetch: typeof loopbackFetch = (input, init) => {
    const { origin } = new URL(input instanceof Request ? input.url : input);
    asked.push(
      origin === crtsh.url.origin ? 'crt.sh' : origin === certspotter.url.origin ? 'certspotter' : origin,
    );
    return loopbackFetch(input, init);
  };
  return { asked, fetch };
}

/** Whether `promise` has settled by now (its callbacks run first). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('hedged CT lookup', () => {
  it('answers from crt.sh when it is quick, without asking Cert Spotter', async () => {
    // "Quick": crt.sh answered before the hedge delay passed, however long the machine took to carry it.
    holdTheClock();
    const { result, calls } = await newLookup()('healthy-shop.com');
    expect(result.ok && result.value.source).toBe('crt.sh');
    expect(result.ok && result.value.issuances).toHaveLength(6);
    expect(certspotter.requests).toHaveLength(0);
    expect(calls).toEqual([
      expect.objectContaining({ name: 'crt.sh', url: crtsh.url.href, ok: true, cached: false }),
    ]);
  });

  it('crt.sh hanging: Cert Spotter is asked once the hedge delay has passed, answers, and crt.sh is cancelled', async () => {
    crtsh.mode = 'hang';
    holdTheClock();
    const { asked, fetch } = askedFetch();
    const lookup = newLookup({ fetch })('healthy-shop.com');
    await vi.advanceTimersByTimeAsync(HEDGE_MS - 1);
    expect(asked).toEqual(['crt.sh']);
    await vi.advanceTimersByTimeAsync(1);
    const value = await lookup;
    expect(asked[1]).toBe('certspotter');
    expect(value.result.ok && value.result.value.source).toBe('certspotter');
    expect(value.calls).toContainEqual(expect.objectContaining({ name: 'crt.sh', ok: false }));
  });

  it('crt.sh answering 503: Cert Spotter is asked at once, well before the hedge delay', async () => {
    // No time passes: Cert Spotter can only have been asked because crt.sh failed.
    holdTheClock();
    const value = await newLookup({ hedgeDelayMs: 2_000 })('crtsh-outage.net');
    expect(value.result.ok && value.result.value.source).toBe('certspotter');
    expect(value.calls.map((call) => [call.name, call.ok])).toEqual([
      ['crt.sh', false],
      ['certspotter', true],
    ]);
  });

  it('crt.sh slow but answering first after the hedge: its full history wins and Cert Spotter is cancelled', async () => {
    let answerCrtsh = () => {};
    crtsh.hold = new Promise<void>((resolve) => (answerCrtsh = resolve));
    certspotter.mode = 'hang';
    holdTheClock();
    const { asked, fetch } = askedFetch();
    const lookup = newLookup({ fetch })('healthy-shop.com');
    await vi.advanceTimersByTimeAsync(HEDGE_MS);
    expect(asked).toEqual(['crt.sh', 'certspotter']);
    // Cert Spotter has not answered: crt.sh does now.
    answerCrtsh();
    const value = await lookup;
    expect(value.result.ok && value.result.value.source).toBe('crt.sh');
    expect(value.calls).toContainEqual(expect.objectContaining({ name: 'certspotter', ok: false }));
  });

  it('both failing fast: one failure naming both sources, crt.sh first', async () => {
    const { result } = await newLookup()('ct-outage.org');
    if (result.ok) throw new Error('expected a failure');
    expect(result.failure.failures.map((failure) => [failure.source, failure.code])).toEqual([
      ['crt.sh', 'http_status'],
      ['certspotter', 'rate_limited'],
    ]);
  });

  it('both hanging: timeouts naming both, within the budget', async () => {
    crtsh.mode = 'hang';
    certspotter.mode = 'hang';
    holdTheClock();
    const lookup = newLookup({ budgetMs: 600 })('healthy-shop.com');
    await vi.advanceTimersByTimeAsync(599);
    expect(await settled(lookup)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const value = await lookup;
    if (value.result.ok) throw new Error('expected a failure');
    expect(value.result.failure.failures.map((failure) => [failure.source, failure.code])).toEqual([
      ['crt.sh', 'timeout'],
      ['certspotter', 'timeout'],
    ]);
  });
});

describe('an empty CT answer needs both aggregators', () => {
  it('crt.sh answering [] for a domain with certificates: Cert Spotter is asked at once and its issuances win', async () => {
    // No time passes: Cert Spotter can only have been asked because crt.sh's answer was empty.
    holdTheClock();
    const value = await newLookup({ hedgeDelayMs: 2_000 })('crtsh-blank.com');
    if (!value.result.ok) throw new Error(value.result.failure.detail);
    expect(value.result.value.source).toBe('certspotter');
    // Unexpired only: the certificates issued 20 and 78 days ago.
    expect(value.result.value.issuances).toHaveLength(2);
    expect(value.calls.map((call) => [call.name, call.ok])).toEqual([
      ['crt.sh', true],
      ['certspotter', true],
    ]);
  });

  it('both answering []: "no certificate", from crt.sh, and cached', async () => {
    const lookup = newLookup();
    const { result, calls } = await lookup('no-cert-yet.com');
    expect(result).toEqual({ ok: true, value: { issuances: [], source: 'crt.sh' } });
    expect(calls.map((call) => call.name).sort()).toEqual(['certspotter', 'crt.sh']);
    const again = await lookup('no-cert-yet.com');
    expect(again.calls.every((call) => call.cached)).toBe(true);
    expect(crtsh.requests).toHaveLength(1);
    expect(certspotter.requests).toHaveLength(1);
  });

  it('crt.sh answering [] and Cert Spotter failing: a failure naming Cert Spotter, never cached', async () => {
    const lookup = newLookup();
    const { result } = await lookup('crtsh-blank-throttled.org');
    if (result.ok) throw new Error('expected a failure, not an unconfirmed "no certificate"');
    expect(result.failure.failures).toEqual([
      expect.objectContaining({
        source: 'certspotter',
        code: 'rate_limited',
        detail: expect.stringContaining('crt.sh found no certificate'),
      }),
    ]);
    await lookup('crtsh-blank-throttled.org');
    expect(crtsh.requests).toHaveLength(2);
  });

  it('crt.sh failing and Cert Spotter answering []: a failure, not "no certificate"', async () => {
    crtsh.mode = 'bad_gateway';
    const { result } = await newLookup()('no-cert-yet.com');
    if (result.ok) throw new Error('expected a failure');
    expect(result.failure.failures).toEqual([
      expect.objectContaining({
        source: 'crt.sh',
        code: 'http_status',
        detail: expect.stringContaining('certspotter found no certificate'),
      }),
    ]);
  });

  it("Cert Spotter's [] first (it lists unexpired issuances only) waits for crt.sh's full history", async () => {
    crtsh.delayMs = 400;
    const { result } = await newLookup()('lapsed-cert.org');
    if (!result.ok) throw new Error(result.failure.detail);
    expect(result.value.source).toBe('crt.sh');
    expect(result.value.issuances).toHaveLength(3);
    expect(certspotter.requests.length).toBeGreaterThan(0);
  });
});

describe('CT lookup cache', () => {
  it('50 concurrent identical lookups make exactly one upstream request', async () => {
    const lookup = newLookup();
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => lookup('healthy-shop.com')));
    expect(crtsh.requests).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.calls[0]?.cached)).toHaveLength(49);
    expect(
      new Set(outcomes.map((outcome) => outcome.result.ok && outcome.result.value.issuances.length)),
    ).toEqual(new Set([6]));
  });

  it('reuses a good answer for 10 minutes (reported cached, 0 ms), then asks again', async () => {
    let clock = 1_000_000;
    const lookup = newLookup({ now: () => clock });
    await lookup('healthy-shop.com');
    clock += CT_CACHE_TTL_MS - 1;
    const reused = await lookup('healthy-shop.com');
    expect(reused.calls).toEqual([
      expect.objectContaining({ name: 'crt.sh', cached: true, ms: 0, ok: true }),
    ]);
    expect(crtsh.requests).toHaveLength(1);
    clock += 2;
    await lookup('healthy-shop.com');
    expect(crtsh.requests).toHaveLength(2);
  });

  it('never keeps a failure', async () => {
    const lookup = newLookup();
    await lookup('ct-outage.org');
    await lookup('ct-outage.org');
    expect(crtsh.requests).toHaveLength(2);
    expect(certspotter.requests).toHaveLength(2);
  });
});
