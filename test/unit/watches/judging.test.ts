import { describe, expect, it } from 'vitest';
import type { SiteHealthResult } from '../../../src/checks/site-health/result.ts';
import { outputExampleFor } from '../../../src/payments/server/output-examples.ts';
import { confirmingCheck } from '../../../src/watches/confirm.ts';
import { judgeAttempt } from '../../../src/watches/delivery.ts';
import { advance, activate, newWatch } from '../../../src/watches/model.ts';
import { nextConditions } from '../../../src/watches/next-conditions.ts';
import type { WatchCheckOutcome } from '../../../src/watches/ports.ts';
import { confirmableCodes, judgingOf } from '../../../src/watches/unjudged.ts';

const DAY_S = 86_400;

/** The published example without findings: a probe that succeeds on the served chain, or fails without reading it. */
function result({ probeOk = true, codes = [] as string[] } = {}): SiteHealthResult {
  const r = structuredClone(outputExampleFor('v1_site_health')) as SiteHealthResult;
  r.findings = [];
  for (const section of [r.cert, r.dns, r.expiry]) if ('findings' in section) section.findings = [];
  if ('live_probe' in r.cert) {
    r.cert.live_probe.ok = probeOk;
    if (!probeOk) {
      r.cert.judged.source = 'ct_newest';
      r.cert.judged.served_chain = 'not_read';
    }
    r.cert.findings = codes.map((code) => ({ code, severity: 'warning' as const, message: code }));
    if (!probeOk) r.cert.findings.push({ code: 'probe.failed', severity: 'warning', message: 'timeout' });
  }
  return r;
}

function withFailedSection(r: SiteHealthResult, name: 'cert' | 'dns' | 'expiry'): SiteHealthResult {
  return { ...r, [name]: { error: { code: 'upstream_failed', message: 'x' } }, partial: true };
}

describe('what a result could not judge', () => {
  it('carries a served-chain comparison over a failed probe, and reports it unjudged', () => {
    const before = ['cert.renewed_not_deployed'];
    expect(nextConditions(before, result({ probeOk: false }))).toEqual({
      conditions: ['cert.renewed_not_deployed', 'probe.failed'],
      unjudged: ['cert.renewed_not_deployed'],
    });
    // The probe answers again: now its absence is an all-clear.
    expect(nextConditions(['cert.renewed_not_deployed', 'probe.failed'], result())).toEqual({
      conditions: [],
      unjudged: [],
    });
  });

  it('neither raises nor clears the codes of a section that failed', () => {
    const held = ['dmarc.policy_none', 'expiry.expires_soon', 'cert.renewal_stalled'];
    for (const section of ['cert', 'dns', 'expiry'] as const) {
      const next = nextConditions(held, withFailedSection(result(), section));
      const lost = held.filter((code) => !next.conditions.includes(code));
      expect(next.unjudged.length, section).toBe(1);
      expect(lost).toHaveLength(2);
    }
    expect(judgingOf(withFailedSection(result(), 'dns')).canRaise('caa.issuer_not_permitted')).toBe(false);
  });

  it('raises an expiry seen on CT’s newest certificate, but clears none without the served chain', () => {
    const low = result({ probeOk: false, codes: ['cert.expires_soon'] });
    expect(nextConditions([], low).conditions).toContain('cert.expires_soon');
    expect(nextConditions(['cert.expired'], result({ probeOk: false }))).toMatchObject({
      unjudged: ['cert.expired'],
    });
  });

  it('keeps DNS codes while their lookups did not answer at either resolver', () => {
    const r = result();
    if ('findings' in r.dns)
      r.dns.findings = [{ code: 'dns.lookup_failed', severity: 'warning', message: 'x' }];
    // CAA has its own lookup, which answered: its absence clears.
    expect(nextConditions(['dmarc.missing', 'caa.missing'], r)).toEqual({
      conditions: ['dmarc.missing', 'dns.lookup_failed'],
      unjudged: ['dmarc.missing'],
    });
  });

  it('carries what the cert check itself says it could not judge (history Cert Spotter does not list)', () => {
    const r = result();
    if ('judged' in r.cert) r.cert.judged.unjudged = ['cert.fixed_renewal_day'];
    expect(nextConditions(['cert.fixed_renewal_day'], r)).toMatchObject({
      conditions: ['cert.fixed_renewal_day'],
      unjudged: ['cert.fixed_renewal_day'],
    });
    if ('judged' in r.cert) r.cert.judged.unjudged = [];
    expect(nextConditions(['cert.fixed_renewal_day'], r).conditions).toEqual([]);
  });

  it('keeps renewal history codes while a CT source did not answer, and ARI codes while the CA did not', () => {
    const r = result();
    if ('sources' in r.cert) r.cert.sources = [{ name: 'crt.sh', url: 'x', ok: false, ms: 1, cached: false }];
    expect(nextConditions(['cert.renewal_stalled'], r).unjudged).toEqual(['cert.renewal_stalled']);
    const ari = result();
    if ('renewal' in ari.cert && ari.cert.renewal.ari) ari.cert.renewal.ari.status = 'unavailable';
    expect(nextConditions(['cert.ari_window_passed'], ari).unjudged).toEqual(['cert.ari_window_passed']);
  });

  it('clears a served-chain code only when a probe succeeds', () => {
    const failing = result({ probeOk: false });
    if ('judged' in failing.cert) {
      failing.cert.judged.source = 'served';
      failing.cert.judged.served_chain = 'refused';
    }
    expect(nextConditions(['cert.untrusted'], failing).conditions).toContain('cert.untrusted');
    expect(nextConditions(['cert.untrusted'], result()).conditions).toEqual([]);
  });

  it('needs confirming for a failed probe, the served chain codes and an expired served leaf only', () => {
    const served = result({ codes: ['cert.expired', 'cert.untrusted', 'cert.renewal_stalled'] });
    expect(confirmableCodes(served, ['cert.expired', 'cert.untrusted', 'cert.renewal_stalled'])).toEqual([
      'cert.expired',
      'cert.untrusted',
    ]);
    const fromCt = result({ probeOk: false, codes: ['cert.expired'] });
    expect(confirmableCodes(fromCt, ['cert.expired', 'probe.failed'])).toEqual(['probe.failed']);
    expect(nextConditions([], result({ probeOk: false }), ['probe.failed']).conditions).toEqual([]);
  });
});

describe('a cancelled watch’s watch.ended', () => {
  it('is tried once: a failed attempt gives it up', () => {
    const delivery = {
      eventId: 'evt_x_000001',
      watchId: 'wat_x',
      url: 'https://h.example/',
      body: '{}',
      attempts: 0,
      dueAt: 0,
    };
    expect(
      judgeAttempt({ ...delivery, once: true }, { kind: 'answered', status: 500 }, 0, DAY_S).verdict,
    ).toEqual({
      kind: 'given_up',
    });
    expect(judgeAttempt(delivery, { kind: 'answered', status: 500 }, 0, DAY_S).verdict).toMatchObject({
      kind: 'retry',
    });
  });
});

describe('confirmation', () => {
  const outcomes = (...results: SiteHealthResult[]) => {
    const calls: number[] = [];
    const check = async (): Promise<WatchCheckOutcome> => {
      calls.push(calls.length);
      const next = results.shift();
      return next ? { type: 'result', result: next } : { type: 'upstream_failed', upstreams: [] };
    };
    return { check, calls };
  };
  const slept: number[] = [];
  const sleep = async (ms: number) => {
    slept.push(ms);
  };

  it('looks once when nothing needs confirming', async () => {
    const { check, calls } = outcomes(result());
    expect(await confirmingCheck(check, 5000, sleep)('example.com')).toMatchObject({ type: 'result' });
    expect(calls).toHaveLength(1);
  });

  it('takes the second look after the interval: a flaky timeout is gone, a real one is confirmed', async () => {
    const flaky = outcomes(result({ probeOk: false }), result());
    const once = await confirmingCheck(flaky.check, 5000, sleep)('example.com');
    expect(once).not.toHaveProperty('unconfirmed');
    expect(once.type === 'result' && once.result.cert).toMatchObject({ live_probe: { ok: true } });
    expect(slept.at(-1)).toBe(5000);
    const down = outcomes(result({ probeOk: false }), result({ probeOk: false }));
    expect(await confirmingCheck(down.check, 5000, sleep)('example.com')).not.toHaveProperty('unconfirmed');
    const newOnSecond = outcomes(
      result({ probeOk: false }),
      result({ probeOk: false, codes: ['cert.name_mismatch'] }),
    );
    expect(await confirmingCheck(newOnSecond.check, 5000, sleep)('example.com')).toMatchObject({
      unconfirmed: ['cert.name_mismatch'],
    });
    const noSecond = outcomes(result({ probeOk: false }));
    expect(await confirmingCheck(noSecond.check, 5000, sleep)('example.com')).toMatchObject({
      unconfirmed: ['probe.failed'],
    });
  });
});

describe('the alert a receiver gets', () => {
  it('says which conditions were carried unjudged, and never clears them', () => {
    const now = Date.parse(result().checked_at);
    const judged = result({ codes: ['cert.renewed_not_deployed'] });
    const pending = newWatch({
      id: 'wat_x',
      domain: 'example.com',
      days: 3,
      webhookUrl: null,
      intervalS: 3600,
      dayS: DAY_S,
      now,
      result: judged,
    });
    const watch = activate(pending, now, DAY_S).watch;
    const at = watch.nextCheckAt;
    const down = advance(watch, { ok: true, result: result({ probeOk: false }) }, at, DAY_S);
    expect(down.events[0]?.data).toMatchObject({
      raised: ['probe.failed'],
      cleared: [],
      unjudged: ['cert.renewed_not_deployed'],
      conditions: ['cert.renewed_not_deployed', 'probe.failed'],
    });
    const back = advance(down.watch, { ok: true, result: judged }, down.watch.nextCheckAt, DAY_S);
    expect(back.events[0]?.data).toMatchObject({ raised: [], cleared: ['probe.failed'], unjudged: [] });
  });
});
