import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BREAKER_CONTROL_PATIENCE_MS,
  type Breaker,
  type BreakerControl,
  createBreaker,
  createBreakerBoard,
} from '../../../src/sources/breaker.ts';
import { CRTSH_CONTROL_NAME, crtshAnswers } from '../../../src/sources/ct/crtsh.ts';
import { createCtCache, createCtLookup } from '../../../src/sources/ct/lookup.ts';
import { createDohClient, resolverAnswers } from '../../../src/sources/doh/client.ts';
import { type CertspotterFake, startCertspotter } from '../../world/certspotter.ts';
import { type CrtshFake, startCrtsh } from '../../world/crtsh.ts';
import { renewalSeries } from '../../world/ct-history.ts';
import type { Scenario } from '../../world/scenario.ts';
import { startDnsWorld, type DnsWorld } from '../sources/doh/world.ts';
import { ctScenarios, loopbackFetch, NOW } from '../sources/ct/world.ts';

const HEDGE_MS = 1_000;
const CERTSPOTTER_MS = 150;
const COOL_DOWN_MS = 30_000;
const WINDOW_MS = 60_000;

/** A control the test answers by hand (the latest question unless told which), counting the questions. */
function manualControl(): BreakerControl & {
  asked: number;
  answer(answered: boolean, question?: number): Promise<void>;
} {
  const settles: ((answered: boolean) => void)[] = [];
  const control = Object.assign(
    () => {
      control.asked += 1;
      return new Promise<boolean>((resolve) => settles.push(resolve));
    },
    {
      asked: 0,
      answer: async (answered: boolean, question = settles.length) => {
        settles[question - 1]?.(answered);
        await settled();
      },
    },
  );
  return control;
}

/** Lets the breaker see a control's answer (it arrives in a promise reaction). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

/** A breaker asking its control after `distinct` failing domains, on a clock the test moves. */
function testBreaker(control: BreakerControl, distinct = 2): { breaker: Breaker; advance(ms: number): void } {
  let clock = 0;
  const breaker = createBreaker(control, {
    distinct,
    windowMs: WINDOW_MS,
    coolDownMs: COOL_DOWN_MS,
    now: () => clock,
  });
  return { breaker, advance: (ms) => (clock += ms) };
}

/** `control`, counting the answers it gave. */
function counted(control: BreakerControl): BreakerControl & { answered: number } {
  const wrapped = Object.assign(
    async () => {
      const answer = await control();
      wrapped.answered += 1;
      return answer;
    },
    { answered: 0 },
  );
  return wrapped;
}

/** Waits until `condition` holds (at most 5 s), then lets the breaker see what arrived. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i += 1) await new Promise((r) => setTimeout(r, 10));
  await settled();
}

/** Waits until `breaker` has left the state it is in (its control answered). */
async function untilNot(breaker: Breaker, state: Breaker['state']): Promise<void> {
  for (let i = 0; i < 500 && breaker.state === state; i += 1) await new Promise((r) => setTimeout(r, 10));
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

describe('circuit breaker: failures are evidence, the control question decides', () => {
  it('failures of one domain, however many, never ask the control nor open the breaker', () => {
    const control = manualControl();
    const { breaker } = testBreaker(control, 5);
    for (let i = 0; i < 50; i += 1) breaker.failure('slow-for-everyone.example');
    expect(control.asked).toBe(0);
    expect(breaker.state).toBe('closed');
    expect(breaker.allow()).toBe(true);
  });

  it('distinct failing domains ask the control once; an answered control keeps it closed and clears the evidence', async () => {
    const control = manualControl();
    const { breaker } = testBreaker(control, 5);
    for (const key of ['a.example', 'b.example', 'c.example', 'd.example']) breaker.failure(key);
    expect(control.asked).toBe(0);
    breaker.failure('e.example');
    breaker.failure('f.example'); // while the control runs: no second question
    expect(control.asked).toBe(1);
    expect(breaker.allow()).toBe(true); // the callers still go out while the control is asked
    await control.answer(true);
    expect(breaker.state).toBe('closed');
    // The evidence was cleared: four more domains are not enough for another question.
    for (const key of ['g.example', 'h.example', 'i.example', 'j.example']) breaker.failure(key);
    expect(control.asked).toBe(1);
  });

  it('a success, or failures older than the window, take the evidence away', () => {
    const control = manualControl();
    const { breaker, advance } = testBreaker(control, 3);
    breaker.failure('a.example');
    breaker.failure('b.example');
    breaker.success();
    breaker.failure('c.example');
    expect(control.asked).toBe(0);
    breaker.failure('d.example');
    advance(WINDOW_MS);
    breaker.failure('e.example'); // c and d are out of the window
    expect(control.asked).toBe(0);
    breaker.failure('f.example');
    breaker.failure('e.example'); // a repeat refreshes, it does not add
    expect(control.asked).toBe(0);
    breaker.failure('g.example');
    expect(control.asked).toBe(1);
  });

  it('a failed control opens it; after the cool-down callers still skip while the control is asked again', async () => {
    const control = manualControl();
    const { breaker, advance } = testBreaker(control);
    breaker.failure('a.example');
    breaker.failure('b.example');
    await control.answer(false);
    expect(breaker.state).toBe('open');
    expect(breaker.allow()).toBe(false);
    breaker.failure('c.example'); // nothing is counted while open
    expect(control.asked).toBe(1);

    advance(COOL_DOWN_MS);
    expect(breaker.state).toBe('half_open');
    expect(breaker.allow()).toBe(false); // no caller's call is the probe
    expect(breaker.allow()).toBe(false);
    expect(control.asked).toBe(2); // one question for both
    await control.answer(false);
    expect(breaker.state).toBe('open'); // failed again: another cool-down

    advance(COOL_DOWN_MS);
    expect(breaker.allow()).toBe(false);
    await control.answer(true);
    expect(breaker.state).toBe('closed');
    expect(breaker.allow()).toBe(true);
  });

  it('a control question left unanswered is asked again after 10 s, and its late answer ignored', async () => {
    const control = manualControl();
    const { breaker, advance } = testBreaker(control);
    breaker.failure('a.example');
    breaker.failure('b.example');
    expect(control.asked).toBe(1);
    advance(BREAKER_CONTROL_PATIENCE_MS - 1);
    breaker.failure('c.example');
    expect(control.asked).toBe(1);
    advance(1);
    breaker.failure('d.example');
    expect(control.asked).toBe(2);
    await control.answer(false, 2);
    expect(breaker.state).toBe('open');
    await control.answer(true, 1); // the forgotten question's late answer changes nothing
    expect(breaker.state).toBe('open');
  });

  it('a control that throws counts as failed', async () => {
    const { breaker } = testBreaker(() => Promise.reject(new Error('bug')));
    breaker.failure('a.example');
    breaker.failure('b.example');
    await settled();
    expect(breaker.state).toBe('open');
  });
});

/** Five domains whose crt.sh search hangs (large result sets do on the real crt.sh); Cert Spotter answers. */
const hangingAtCrtsh: Scenario[] = Array.from({ length: 5 }, (_, i) => ({
  domain: `huge-history-${i + 1}.com`,
  about: 'crt.sh hangs for this name only; Cert Spotter has its certificates.',
  ct: {
    crtsh: { mode: 'hang' },
    certificates: renewalSeries({
      issuer: 'le-r11',
      names: [`huge-history-${i + 1}.com`],
      count: 3,
      lastIssuedDaysAgo: 10,
      everyDays: 60,
    }),
  },
}));

describe('breaker board', () => {
  it('controlsAnswered waits for every control question in flight (a Worker keeps its request alive for it)', async () => {
    const control = manualControl();
    const board = createBreakerBoard({ distinct: 2, windowMs: WINDOW_MS, coolDownMs: COOL_DOWN_MS });
    const breaker = board.of('crt.sh', control);
    await board.controlsAnswered(); // nothing asked: at once
    breaker.failure('a.example');
    breaker.failure('b.example');
    expect(control.asked).toBe(1);
    let answered = false;
    const waiting = board.controlsAnswered().then(() => (answered = true));
    await settled();
    expect(answered).toBe(false);
    await control.answer(true);
    await waiting;
    expect(answered).toBe(true);
    expect(breaker.state).toBe('closed');
  });
});

describe('crt.sh breaker in the hedged CT lookup', () => {
  let crtsh: CrtshFake;
  let certspotter: CertspotterFake;
  beforeAll(async () => {
    crtsh = await startCrtsh(ctScenarios(...hangingAtCrtsh), { now: () => NOW });
    certspotter = await startCertspotter(ctScenarios(...hangingAtCrtsh), { now: () => NOW });
  });
  afterAll(async () => {
    await crtsh.close();
    await certspotter.close();
  });
  afterEach(() => {
    crtsh.mode = null;
    certspotter.mode = null;
    certspotter.delayMs = 0;
  });

  /** The production control (a search that matches nothing), bounded for the test. */
  const crtshControl = () => crtshAnswers({ fetch: loopbackFetch, baseUrl: crtsh.url, timeoutMs: 500 });
  const controlAsked = () =>
    crtsh.requests.filter((request) => request.url.searchParams.get('Identity') === CRTSH_CONTROL_NAME)
      .length;
  const crtshAskedFor = (domain: string) =>
    crtsh.requests.filter((request) => request.url.searchParams.get('Identity') === domain).length;
  /** A fresh cache per call, so every call reaches the upstreams. */
  const lookupWith =
    (breaker: Breaker, hedgeDelayMs = HEDGE_MS) =>
    (domain: string) =>
      createCtLookup({
        fetch: loopbackFetch,
        crtshUrl: crtsh.url,
        certspotterUrl: certspotter.url,
        hedgeDelayMs,
        budgetMs: 4_000,
        cache: createCtCache(),
        crtshBreaker: breaker,
      })(domain);

  it('five checks of five domains that hang at crt.sh leave the next healthy check asking crt.sh', async () => {
    // Production thresholds: five distinct domains ask the control.
    const control = counted(crtshControl);
    const breaker = createBreaker(control);
    const lookup = lookupWith(breaker, 300);
    const slow = await Promise.all(hangingAtCrtsh.map((scenario) => lookup(scenario.domain)));
    for (const outcome of slow) expect(outcome.result.ok && outcome.result.value.source).toBe('certspotter');
    // The five failures made the breaker ask crt.sh a question no caller chose, and crt.sh answered.
    await until(() => control.answered === 1);
    expect(controlAsked()).toBe(1);
    expect(breaker.state).toBe('closed');

    const before = crtshAskedFor('healthy-shop.com');
    const healthy = await lookup('healthy-shop.com');
    expect(healthy.result.ok && healthy.result.value.source).toBe('crt.sh');
    expect(crtshAskedFor('healthy-shop.com')).toBe(before + 1);
    expect(healthy.calls.find((call) => call.name === 'crt.sh')).toMatchObject({ ok: true });
  });

  it('crt.sh failing for every domain (fifteen distinct ones) still opens it', async () => {
    const breaker = createBreaker(crtshControl);
    const lookup = lookupWith(breaker, 300);
    crtsh.mode = 'hang';
    const outcomes = [];
    for (let i = 1; i <= 15; i += 1) outcomes.push(await lookup(`shop-${i}.wildcard-cover.com`));
    for (const outcome of outcomes)
      expect(outcome.result.ok && outcome.result.value.source).toBe('certspotter');
    expect(controlAsked()).toBeGreaterThanOrEqual(1);
    expect(breaker.state).toBe('open');
    // The last checks skipped crt.sh without waiting for the hedge.
    expect(outcomes.at(-1)?.calls).toContainEqual(
      expect.objectContaining({ name: 'crt.sh', skipped: true, ms: 0 }),
    );
    expect(crtshAskedFor('shop-15.wildcard-cover.com')).toBe(0);
  });

  it('crt.sh hanging: once open, Cert Spotter is asked at once (no hedge wait); the control closes it after the cool-down', async () => {
    const { breaker, advance } = testBreaker(crtshControl);
    const lookup = lookupWith(breaker);
    crtsh.mode = 'hang';
    certspotter.delayMs = CERTSPOTTER_MS;

    for (const domain of ['healthy-shop.com', 'wildcard-cover.com']) {
      const { value, ms } = await timed(() => lookup(domain));
      expect(value.result.ok && value.result.value.source).toBe('certspotter');
      expect(ms).toBeGreaterThanOrEqual(HEDGE_MS + CERTSPOTTER_MS - 5);
    }
    await untilNot(breaker, 'closed');
    expect(breaker.state).toBe('open');

    const crtshAsked = crtsh.requests.length;
    const certspotterAsked = certspotter.requests.length;
    const started = performance.now();
    const pending = lookup('healthy-shop.com');
    await certspotter.arrival(() => certspotter.requests.length > certspotterAsked);
    // Asked at once: the hedge would first wait HEDGE_MS, over ten times what starting a request
    // takes on the loaded machine.
    expect(performance.now() - started).toBeLessThan(HEDGE_MS);
    const value = await pending;
    expect(value.result.ok && value.result.value.source).toBe('certspotter');
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
    // The first check after the cool-down still skips crt.sh; the control answers and closes it.
    const during = await lookup('healthy-shop.com');
    expect(during.calls).toContainEqual(expect.objectContaining({ name: 'crt.sh', skipped: true }));
    await untilNot(breaker, 'half_open');
    expect(breaker.state).toBe('closed');
    const after = await lookup('healthy-shop.com');
    expect(after.result.ok && after.result.value.source).toBe('crt.sh');
  });

  it('crt.sh skipped and Cert Spotter failing: a 502 naming crt.sh as circuit_open', async () => {
    const { breaker } = testBreaker(async () => false);
    breaker.failure('a.example');
    breaker.failure('b.example');
    await settled();
    certspotter.mode = 'server_error';
    const { result, calls } = await createCtLookup({
      fetch: loopbackFetch,
      crtshUrl: crtsh.url,
      certspotterUrl: certspotter.url,
      crtshBreaker: breaker,
    })('healthy-shop.com');
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

/** Five domains whose name servers never answer: every resolver times out on them. */
const deadNameServers: Scenario[] = Array.from({ length: 5 }, (_, i) => ({
  domain: `dead-ns-${i + 1}.net`,
  about: 'Authoritative servers that never answer (both resolvers time out on the name).',
  dns: { records: { [`dead-ns-${i + 1}.net`]: { fails: { types: 'all', failure: 'hang' } } } },
}));

describe('primary resolver breaker in the DoH client', () => {
  let world: DnsWorld;
  beforeAll(async () => {
    world = await startDnsWorld(...deadNameServers);
  });
  afterAll(() => world.close());
  afterEach(() => {
    world.primary.mode = null;
  });

  const primaryControl = () =>
    resolverAnswers({ fetch: loopbackFetch, url: world.primary.endpoint, timeoutMs: 300 });
  const client = (breaker: Breaker) =>
    createDohClient({
      fetch: loopbackFetch,
      primaryUrl: world.primary.endpoint,
      fallbackUrl: world.fallback.endpoint,
      timeoutMs: 300,
      hedgeMs: 100,
      primaryBreaker: breaker,
    });
  const controlAsked = () => world.primary.queries.filter((q) => q.name === '' && q.type === 'SOA').length;

  it('domains whose own name servers hang do not open it: the primary answers the control', async () => {
    const control = counted(primaryControl);
    const breaker = createBreaker(control);
    const asked = controlAsked();
    const answers = await Promise.all(
      deadNameServers.map((scenario) =>
        client(breaker).query(scenario.domain, 'A', { subject: scenario.domain }),
      ),
    );
    expect(answers.every((answer) => !answer.ok && answer.failure.code === 'timeout')).toBe(true);
    await until(() => control.answered === 1);
    expect(controlAsked()).toBe(asked + 1);
    expect(breaker.state).toBe('closed');
    const next = await client(breaker).query('healthy-shop.com', 'A');
    expect(next.ok && next.value.resolver).toBe(world.primary.endpoint.href);
  });

  it('failures count per checked domain: one domain’s many names ask nothing', async () => {
    const breaker = createBreaker(primaryControl);
    const asked = controlAsked();
    world.primary.mode = 'hang';
    const names = ['a', 'b', 'c', 'd', 'e', 'f'].map((label) => `${label}.healthy-shop.com`);
    await Promise.all(
      names.map((name) => client(breaker).query(name, 'TXT', { subject: 'healthy-shop.com' })),
    );
    await settled();
    expect(controlAsked()).toBe(asked);
    expect(breaker.state).toBe('closed');
  });

  it('primary hanging: once open, questions go straight to the fallback; the control closes it again', async () => {
    const { breaker, advance } = testBreaker(primaryControl);
    world.primary.mode = 'hang';
    for (const name of ['healthy-shop.com', 'spf-deep.org']) {
      const { ms } = await timed(() => client(breaker).query(name, 'A'));
      expect(ms).toBeGreaterThanOrEqual(95);
    }
    await untilNot(breaker, 'closed');
    expect(breaker.state).toBe('open');
    const fallbackAsked = world.fallback.requests.length;
    const started = performance.now();
    const pending = client(breaker).query('healthy-shop.com', 'A');
    await world.fallback.arrival(() => world.fallback.requests.length > fallbackAsked);
    // Asked at once: the hedge would first wait its 100 ms.
    expect(performance.now() - started).toBeLessThan(100);
    const value = await pending;
    expect(value.ok && value.value.attempts).toEqual([
      { resolver: world.primary.endpoint.href, ok: false, ms: 0, skipped: true },
      expect.objectContaining({ resolver: world.fallback.endpoint.href, ok: true }),
    ]);

    world.primary.mode = null;
    advance(COOL_DOWN_MS);
    await client(breaker).query('healthy-shop.com', 'MX');
    await untilNot(breaker, 'half_open');
    expect(breaker.state).toBe('closed');
    const probe = await client(breaker).query('healthy-shop.com', 'A');
    expect(probe.ok && probe.value.resolver).toBe(world.primary.endpoint.href);
  });
});
