import { describe, expect, it } from 'vitest';
import { assessAriWindow, followsAriWindow } from '../../../../src/checks/cert/ari-verdict.ts';
import { assessCertificates } from '../../../../src/checks/cert/assess.ts';
import type { AriOutcome } from '../../../../src/sources/ari/lookup.ts';
import { history, issuance, NOW } from './fixtures.ts';

const DAY_MS = 86_400_000;
const at = (daysFromNow: number) => new Date(NOW.getTime() + daysFromNow * DAY_MS);
const PROBE_OK = { ok: true, http_status: 200, ms: 10, error: null };

/** An ARI answer whose window runs from `start` to `end` days from NOW. */
function answer(start: number, end: number, explanationUrl: string | null = null): AriOutcome {
  return {
    status: 'ok',
    ca: 'letsencrypt',
    certId: 'aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE',
    window: { start: at(start), end: at(end) },
    explanationUrl,
    checkedAt: at(-0.1),
    call: null,
  };
}

/** The verdict for a 90-day certificate issued `age` days ago with the given answer. */
function verdictFor(
  age: number,
  ari: AriOutcome | null,
  extra: { servedLeaf?: { serial: string; notBefore: Date } } = {},
) {
  const current = issuance({ daysAgo: age });
  return assessAriWindow({
    current,
    issuances: [current],
    domain: 'shop.com',
    ari,
    servedLeaf: extra.servedLeaf ?? null,
    now: NOW,
  });
}

const codes = (findings: { code: string }[]) => findings.map((f) => f.code).sort();

describe("the verdict from the CA's renewal window", () => {
  it('window in the future: ok, renew by the window end', () => {
    const verdict = verdictFor(40, answer(19, 21));
    expect(verdict?.stall).toMatchObject({ status: 'ok', basis: 'ari', overdue_days: null });
    expect(verdict?.stall.reason).toContain('renew by 2026-11-10');
    expect(verdict?.renewBy).toEqual(at(21));
    expect(verdict?.findings).toEqual([]);
  });

  it('window open and no successor: watch, "in the CA\'s window, not renewed yet"', () => {
    const verdict = verdictFor(60, answer(-0.5, 1.5));
    expect(verdict?.stall).toMatchObject({ status: 'watch', basis: 'ari', overdue_days: null });
    expect(verdict?.stall.reason).toMatch(
      /^In the CA's renewal window \(2026-10-20 to 2026-10-22\), not renewed yet; 29 days are left\.$/,
    );
  });

  it('window ended and no successor: stalled on basis ari with cert.ari_window_passed', () => {
    const verdict = verdictFor(65, answer(-6, -4));
    expect(verdict?.stall).toMatchObject({ status: 'stalled', basis: 'ari', overdue_days: 4 });
    expect(codes(verdict?.findings ?? [])).toEqual(['cert.ari_window_passed']);
    expect(verdict?.findings[0]?.message).toContain('ended on 2026-10-16');
  });

  it('window open but the site already serves a newer certificate than CT shows: ok (renewed)', () => {
    const verdict = verdictFor(61, answer(-1, 1), { servedLeaf: { serial: '04ffff', notBefore: at(-0.2) } });
    expect(verdict?.stall).toMatchObject({ status: 'ok', basis: 'ari' });
    expect(verdict?.stall.reason).toMatch(/^Renewed: a newer certificate was issued on 2026-10-20/);
  });

  it('a served leaf that is the current certificate is no successor', () => {
    const current = issuance({ daysAgo: 61 });
    const verdict = verdictFor(61, answer(-1, 1), {
      servedLeaf: { serial: current.serial ?? '', notBefore: current.notBefore },
    });
    expect(verdict?.stall.status).toBe('watch');
  });

  it('a newer trusted certificate in CT is a successor', () => {
    const old = issuance({ daysAgo: 65 });
    const next = issuance({ daysAgo: 2 });
    const verdict = assessAriWindow({
      current: old,
      issuances: [old, next],
      domain: 'shop.com',
      ari: answer(-6, -4),
      servedLeaf: null,
      now: NOW,
    });
    expect(verdict?.stall.status).toBe('ok');
    expect(verdict?.findings).toEqual([]);
  });

  it('a window opening before half the lifetime: the CA asked for early renewal (never "revoked")', () => {
    const verdict = verdictFor(20, answer(0.25, 0.27));
    expect(codes(verdict?.findings ?? [])).toEqual(['cert.ca_requested_early_renewal']);
    expect(verdict?.findings[0]?.message).toMatch(/^The CA asked for early renewal/);
    expect(verdict?.findings[0]?.message).not.toMatch(/revok/i);
  });

  it("a short-lived certificate's usual window (half its lifetime, ± 1 %) is no early-renewal request", () => {
    // Boulder places a window at half of a lifetime under 10 days: a 160-hour certificate's opens
    // at 49 % of it. Let's Encrypt's `shortlived` profile issues these.
    const lifetime = 160 / 24;
    const current = issuance({ daysAgo: 1, lifetimeDays: lifetime });
    const fromNow = (share: number) => share * lifetime - 1;
    const judge = (start: number, end: number) =>
      assessAriWindow({
        current,
        issuances: [current],
        domain: 'shop.com',
        ari: answer(fromNow(start), fromNow(end)),
        servedLeaf: null,
        now: NOW,
      });
    expect(judge(0.49, 0.51)?.findings).toEqual([]);
    // Well before that place, it is one.
    expect(codes(judge(0.3, 0.32)?.findings ?? [])).toEqual(['cert.ca_requested_early_renewal']);
  });

  it('an explanation URL alone (a window at the usual two-thirds) is shown, not alarmed (RFC 9773 §4.2)', () => {
    // RFC 9773's own example links the CA's ARI documentation: the URL may explain the usual strategy.
    const url = 'https://acme.example.com/docs/ari';
    const verdict = verdictFor(40, answer(19, 21, url));
    expect(verdict?.findings).toEqual([]);
    expect(verdict?.stall).toMatchObject({ status: 'ok', basis: 'ari' });
    expect(verdict?.stall.reason).toContain(url);
    // Nor once the window is open.
    expect(codes(verdictFor(61, answer(-1, 1, url))?.findings ?? [])).toEqual([]);
  });

  it('an early window with an explanation URL: the finding carries the URL', () => {
    const url = 'https://community.letsencrypt.org/t/2026-03-19-drill';
    const verdict = verdictFor(20, answer(0.25, 0.27, url));
    const finding = verdict?.findings.find((f) => f.code === 'cert.ca_requested_early_renewal');
    expect(finding?.evidence).toBe(url);
    expect(finding?.message).toContain(url);
  });

  it.each([
    ['ending after the certificate expires', 19, 55],
    [
      'from 1970 to 9999',
      (Date.UTC(1970, 0, 1) - NOW.getTime()) / DAY_MS,
      (Date.UTC(9999, 11, 31, 23, 59, 59) - NOW.getTime()) / DAY_MS,
    ],
  ])(
    'a window %s is implausible: never the verdict, named as such, renew_by never after not_after',
    (_, start, end) => {
      expect(verdictFor(40, answer(start, end))).toBeNull();
      const certs = history([40, 100, 161]);
      const result = assessCertificates(certs, PROBE_OK, 'shop.com', NOW, answer(start, end));
      expect(result.renewal.stall.basis).toBe('cadence');
      expect(Date.parse(result.renewal.renew_by ?? '')).toBeLessThanOrEqual(
        Date.parse(result.certificate?.not_after ?? ''),
      );
      expect(result.findings.find((f) => f.code === 'cert.ari_window_implausible')).toMatchObject({
        severity: 'info',
        message: expect.stringMatching(/ends after the certificate expires/),
      });
      expect(result.renewal.follows_ari_window).toBeNull();
    },
  );

  it.each(['not_supported', 'not_found', 'unavailable'] as const)(
    '%s leaves the verdict to the cadence',
    (status) => {
      expect(verdictFor(40, { ...answer(19, 21), status, window: null })).toBeNull();
      expect(verdictFor(40, null)).toBeNull();
    },
  );
});

describe('assessCertificates with ARI', () => {
  it('stalled by the window: cert.renewal_stalled (critical) beside cert.ari_window_passed, renew_by the window end', () => {
    const result = assessCertificates(history([65, 125, 185]), PROBE_OK, 'shop.com', NOW, answer(-6, -4));
    expect(result.renewal.stall).toMatchObject({ status: 'stalled', basis: 'ari' });
    expect(result.renewal.renew_by).toBe('2026-10-16T12:00:00Z');
    // Exactly 60 days each time: a schedule inside today's window, still a fixed renewal day.
    expect(codes(result.findings)).toEqual([
      'cert.ari_window_passed',
      'cert.fixed_renewal_day',
      'cert.renewal_stalled',
    ]);
    expect(result.renewal.follows_ari_window).toBe(false);
    expect(result.findings.find((f) => f.code === 'cert.renewal_stalled')?.severity).toBe('critical');
    expect(result.renewal.ari).toEqual({
      status: 'ok',
      ca: 'letsencrypt',
      cert_id: 'aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE',
      window: { start: '2026-10-14T12:00:00Z', end: '2026-10-16T12:00:00Z' },
      explanation_url: null,
      checked_at: '2026-10-20T09:36:00Z',
    });
  });

  it('in the window: the watch is information, not a warning', () => {
    const result = assessCertificates(history([60, 118, 179]), PROBE_OK, 'shop.com', NOW, answer(-0.5, 1.5));
    expect(result.findings.find((f) => f.code === 'cert.renewal_watch')?.severity).toBe('info');
  });

  it("a cadence the heuristic calls late is on schedule while the CA's window is ahead", () => {
    // Renewals every 45 days, the current one 52 days old: the cadence says watch.
    const cadenceOnly = assessCertificates(history([52, 97, 142]), PROBE_OK, 'shop.com', NOW);
    expect(cadenceOnly.renewal.stall).toMatchObject({ status: 'watch', basis: 'cadence' });
    const withAri = assessCertificates(history([52, 97, 142]), PROBE_OK, 'shop.com', NOW, answer(7, 9));
    expect(withAri.renewal.stall).toMatchObject({ status: 'ok', basis: 'ari' });
    expect(withAri.findings.map((f) => f.code)).not.toContain('cert.renewal_watch');
  });

  it('renewals at varying times inside the (projected) window are no fixed renewal day', () => {
    // 59.5 and 60.5 days: within the fixed-day tolerance, and inside the CA's window (days 59–61).
    const ages = [20, 79.5, 140];
    expect(codes(assessCertificates(history(ages), PROBE_OK, 'shop.com', NOW).findings)).toContain(
      'cert.fixed_renewal_day',
    );
    const result = assessCertificates(history(ages), PROBE_OK, 'shop.com', NOW, answer(39, 41));
    expect(codes(result.findings)).not.toContain('cert.fixed_renewal_day');
    expect(result.renewal.follows_ari_window).toBe(true);
  });

  it('ARI off or no certificate: renewal.ari is null; not answered: the status with the cadence verdict', () => {
    expect(assessCertificates(history([20]), PROBE_OK, 'shop.com', NOW).renewal.ari).toBeNull();
    expect(assessCertificates([], PROBE_OK, 'shop.com', NOW, answer(1, 2)).renewal.ari).toBeNull();
    const unavailable = assessCertificates(history([20, 80]), PROBE_OK, 'shop.com', NOW, {
      ...answer(1, 2),
      status: 'unavailable',
      window: null,
      checkedAt: null,
    });
    expect(unavailable.renewal.ari).toMatchObject({ status: 'unavailable', window: null, checked_at: null });
    expect(unavailable.renewal.stall.basis).toBe('cadence');
  });
});

describe('followsAriWindow', () => {
  const current = { notBefore: at(-20), notAfter: at(70) };
  const series = (intervalsDays: number[]) => ({
    intervalsDays,
    renewsAtPercents: intervalsDays.map((days) => (days / 90) * 100),
  });
  it('true when every renewal landed in the window share at varying times; null without a window', () => {
    expect(followsAriWindow(series([59.5, 60.6]), current, answer(39, 41))).toBe(true);
    // One day of slack around the window.
    expect(followsAriWindow(series([61.4, 60.2]), current, answer(39, 41))).toBe(true);
    // A renewal outside it.
    expect(followsAriWindow(series([59.5, 72]), current, answer(39, 41))).toBe(false);
    // The same day every time: a schedule that happens to fall in today's window.
    expect(followsAriWindow(series([60, 60.05]), current, answer(39, 41))).toBe(false);
    expect(followsAriWindow(series([60]), current, answer(39, 41))).toBeNull();
    expect(followsAriWindow(series([59.5, 60.6]), current, null)).toBeNull();
    // An early-renewal window says nothing about the usual one.
    expect(followsAriWindow(series([59.5, 60.6]), current, answer(1, 2))).toBeNull();
  });
});
