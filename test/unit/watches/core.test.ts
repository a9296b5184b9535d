import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { SiteHealthResult } from '../../../src/checks/site-health/result.ts';
import { outputExampleFor } from '../../../src/payments/server/output-examples.ts';
import { conditionChange, conditionsOf, lifetimeLow } from '../../../src/watches/conditions.ts';
import { deliveriesFor, judgeAttempt } from '../../../src/watches/delivery.ts';
import { activate, advance, cancel, eventSeqOf, extend, newWatch } from '../../../src/watches/model.ts';
import { maxDaysAt, watchPriceAtomic, watchPriceUsd } from '../../../src/watches/pricing.ts';
import { checkWebhookUrl, watchRequestReader } from '../../../src/watches/request.ts';
import { MAX_ATTEMPTS, retryDelayMs } from '../../../src/watches/retry.ts';
import { createWatchSecrets } from '../../../src/watches/secrets.ts';
import { slotAtOrAfter } from '../../../src/watches/slots.ts';
import { webhookHeaders } from '../../../src/watches/signature.ts';

const DAY_S = 86_400;
const base = () => structuredClone(outputExampleFor('v1_site_health')) as SiteHealthResult;

/** A result whose probe fails (or not) and whose certificate has `leftShare` of its lifetime left. */
function resultWith({ probeOk = true, leftShare = 0.5 } = {}): SiteHealthResult {
  const result = base();
  result.findings = [];
  for (const section of [result.cert, result.dns, result.expiry])
    if ('findings' in section) section.findings = [];
  if ('live_probe' in result.cert) {
    result.cert.live_probe.ok = probeOk;
    // As the cert check reports a failure that is not the certificate's: no chain read, `probe.failed`.
    if (!probeOk) {
      result.cert.judged.served_chain = 'not_read';
      result.cert.findings.push({ code: 'probe.failed', severity: 'warning', message: 'timeout' });
    }
    const now = Date.parse(result.checked_at);
    const lifetime = 90 * DAY_S * 1000;
    if (result.cert.certificate) {
      result.cert.certificate.not_before = new Date(now - lifetime * (1 - leftShare)).toISOString();
      result.cert.certificate.not_after = new Date(now + lifetime * leftShare).toISOString();
    }
  }
  return result;
}

describe('conditions', () => {
  it('reads warning and critical codes, probe.failed and cert.lifetime_low', () => {
    expect(conditionsOf(resultWith())).toEqual([]);
    expect(conditionsOf(resultWith({ probeOk: false, leftShare: 0.1 }))).toEqual([
      'cert.lifetime_low',
      'probe.failed',
    ]);
    // A handshake refused for the certificate is the certificate's finding, not a probe failure.
    const refused = resultWith();
    if ('live_probe' in refused.cert) {
      refused.cert.live_probe.ok = false;
      refused.cert.judged.served_chain = 'refused';
      refused.cert.findings.push({ code: 'cert.untrusted', severity: 'critical', message: 'private CA' });
    }
    expect(conditionsOf(refused)).toEqual(['cert.untrusted']);
    const result = resultWith();
    result.findings = [
      { code: 'caa.missing', severity: 'info', message: 'x' },
      { code: 'dmarc.policy_none', severity: 'warning', message: 'x' },
    ];
    expect(conditionsOf(result)).toEqual(['dmarc.policy_none']);
  });

  it('judges 6-day and 90-day certificates by the share of their lifetime left', () => {
    const at = '2026-11-27T00:00:00Z';
    // 6-day certificate with 1 day left (1/6 < 1/5): low; 90-day with 19 days left (> 1/5): not.
    expect(lifetimeLow('2026-11-22T00:00:00Z', '2026-11-28T00:00:00Z', at)).toBe(true);
    expect(lifetimeLow('2026-09-17T00:00:00Z', '2026-12-16T00:00:00Z', at)).toBe(false);
    expect(lifetimeLow('bad', '2026-12-16T00:00:00Z', at)).toBe(false);
  });

  it('reports raised and cleared codes, and nothing for the same state', () => {
    expect(conditionChange(['a', 'b'], ['b', 'c'])).toEqual({ raised: ['c'], cleared: ['a'] });
    expect(conditionChange(['a'], ['a'])).toBeNull();
  });
});

describe('transitions', () => {
  const now = Date.parse('2026-11-27T00:00:00Z');
  const pendingInput = {
    id: 'wat_x',
    domain: 'example.com',
    days: 3,
    webhookUrl: 'https://hooks.example.com/w',
    intervalS: 3600,
    dayS: DAY_S,
    now,
    result: resultWith(),
  };
  const pending = newWatch(pendingInput);
  const timing = DAY_S;

  it('raises watch.created on activation, an alert once per state, and check_failed at the third failure', () => {
    const created = activate(pending, now, DAY_S);
    expect(created.events.map((e) => e.type)).toEqual(['watch.created']);
    let watch = created.watch;
    const bad = { ok: true as const, result: resultWith({ probeOk: false }) };
    const first = advance(watch, bad, watch.nextCheckAt, timing);
    expect(first.events).toMatchObject([
      { type: 'watch.alert', data: { raised: ['probe.failed'], cleared: [] } },
    ]);
    const same = advance(first.watch, bad, first.watch.nextCheckAt, timing);
    expect(same.events).toEqual([]);
    const good = advance(same.watch, { ok: true, result: resultWith() }, same.watch.nextCheckAt, timing);
    expect(good.events).toMatchObject([
      { type: 'watch.alert', data: { raised: [], cleared: ['probe.failed'] } },
    ]);
    watch = good.watch;
    const failures = [1, 2, 3, 4].map(() => {
      const step = advance(watch, { ok: false, reason: 'upstream_failed' }, watch.nextCheckAt, timing);
      watch = step.watch;
      return step.events.map((e) => e.type);
    });
    expect(failures).toEqual([[], [], ['watch.check_failed'], []]);
    expect(new Set([first, good].flatMap((t) => t.events.map((e) => e.id))).size).toBe(2);
  });

  it('moves the next check to the domain’s next slot, one interval on, after the result it used', () => {
    const { watch } = activate(pending, now, DAY_S);
    const slot = watch.nextCheckAt;
    expect(slotAtOrAfter('example.com', 3600, slot)).toBe(slot);
    expect(slot - now).toBeGreaterThanOrEqual(360_000);
    expect(slot - now).toBeLessThan(3600_000 * 1.1);
    const checked = advance(watch, { ok: true, result: resultWith() }, slot + 60_000, timing, slot);
    expect(checked.watch.nextCheckAt).toBe(slot + 3600_000);
    // A result taken 5 s after the slot: still the next slot, no drift.
    const late = advance(watch, { ok: true, result: resultWith() }, slot + 60_000, timing, slot + 5_000);
    expect(late.watch.nextCheckAt).toBe(slot + 3600_000);
    // Only time was due (watch.ending): the next check stays where it was.
    const timeOnly = advance(checked.watch, undefined, slot + 120_000, timing);
    expect(timeOnly.watch.nextCheckAt).toBe(slot + 3600_000);
  });

  it('sends watch.ending one day before the end and watch.ended at it, each once', () => {
    const { watch } = activate(pending, now, DAY_S);
    const ending = advance(watch, undefined, watch.expiresAt - DAY_S * 1000, timing);
    expect(ending.events.map((e) => e.type)).toEqual(['watch.ending']);
    const again = advance(ending.watch, undefined, watch.expiresAt - 1000, timing);
    expect(again.events).toEqual([]);
    const ended = advance(again.watch, undefined, watch.expiresAt, timing);
    expect(ended.events.map((e) => e.type)).toEqual(['watch.ended']);
    expect(ended.watch.status).toBe('ended');
  });

  it('sends no watch.ending to a watch of one day, and sends it again before the end of an extension', () => {
    const day = newWatch({ ...pendingInput, days: 1 });
    const { watch, events } = activate(day, now, DAY_S);
    expect(events.map((e) => e.type)).toEqual(['watch.created']);
    expect(advance(watch, undefined, watch.expiresAt - 1000, timing).events).toEqual([]);
    const longer = extend(watch, 2, 'payer:1', now, DAY_S);
    expect(longer.watch.expiresAt).toBe(watch.expiresAt + 2 * DAY_S * 1000);
    const ending = advance(longer.watch, undefined, longer.watch.expiresAt - DAY_S * 1000, timing);
    expect(ending.events.map((e) => e.type)).toEqual(['watch.ending']);
    expect(longer.watch.extendedBy).toEqual(['payer:1']);
  });

  it('cancels with watch.ended, and numbers events for ?since=', () => {
    const { watch } = activate(pending, now, DAY_S);
    const cancelled = cancel(watch, now);
    expect(cancelled.watch.status).toBe('cancelled');
    const id = cancelled.events[0]?.id ?? '';
    expect(eventSeqOf('wat_x', id)).toBe(2);
    expect(eventSeqOf('wat_y', id)).toBeNull();
    expect(eventSeqOf('wat_x', "evt_x_1' OR 1=1")).toBeNull();
  });
});

describe('deliveries', () => {
  it('retries on the scaled schedule, stops at 410 and gives up after the last retry', () => {
    expect(retryDelayMs(1, DAY_S)).toBe(5000);
    expect(retryDelayMs(8, DAY_S)).toBe(43_200_000);
    expect(retryDelayMs(9, DAY_S)).toBeNull();
    expect(retryDelayMs(1, 864)).toBe(50); // a 100-times shorter day
    const delivery = { eventId: 'e', watchId: 'w', url: 'u', body: '{}', attempts: 0, dueAt: 0 };
    expect(judgeAttempt(delivery, { kind: 'answered', status: 204 }, 1, DAY_S).verdict).toEqual({
      kind: 'delivered',
    });
    expect(judgeAttempt(delivery, { kind: 'answered', status: 410 }, 1, DAY_S).verdict).toEqual({
      kind: 'gone',
    });
    expect(judgeAttempt(delivery, { kind: 'answered', status: 302 }, 1, DAY_S).verdict).toEqual({
      kind: 'retry',
      dueAt: 5001,
    });
    const last = { ...delivery, attempts: MAX_ATTEMPTS - 1 };
    expect(judgeAttempt(last, { kind: 'failed', error: 'timeout' }, 1, DAY_S)).toMatchObject({
      verdict: { kind: 'given_up' },
      attempt: { attempt: MAX_ATTEMPTS, status: null, error: 'timeout' },
    });
  });

  it('delivers nothing for a pull-only watch', () => {
    const watch = newWatch({
      id: 'wat_p',
      domain: 'example.com',
      days: 1,
      webhookUrl: null,
      intervalS: 60,
      dayS: DAY_S,
      now: 0,
      result: resultWith(),
    });
    expect(deliveriesFor(watch, activate(watch, 0, DAY_S).events, 0)).toEqual([]);
  });
});

describe('secrets and signatures', () => {
  const secrets = createWatchSecrets('a-test-key-of-at-least-thirty-two-chars');

  it('derives stable ids, tokens and secrets that another key cannot', async () => {
    const id = await secrets.watchId('0xABC');
    expect(id).toBe(await secrets.watchId('0xabc'));
    expect(id).toMatch(/^wat_[A-Za-z0-9_-]{22}$/);
    const token = await secrets.token(id);
    expect(await secrets.tokenMatches(id, token)).toBe(true);
    expect(await secrets.tokenMatches(id, `${token}x`)).toBe(false);
    expect(await secrets.tokenMatches(await secrets.watchId('0xabd'), token)).toBe(false);
    const other = createWatchSecrets('another-key-of-at-least-thirty-two-chars');
    expect(await other.token(id)).not.toBe(token);
    expect(await secrets.webhookSecret(id)).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it('signs so that the standardwebhooks package verifies, and a changed body does not', async () => {
    const secret = await secrets.webhookSecret('wat_x');
    const body = JSON.stringify({ id: 'evt_1', type: 'watch.created', domain: 'bücher.example' });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = await webhookHeaders(secret, 'evt_1', timestamp, body);
    expect(new Webhook(secret).verify(body, { ...headers })).toMatchObject({ id: 'evt_1' });
    expect(() => new Webhook(secret).verify(`${body} `, { ...headers })).toThrow();
  });
});

describe('pricing and input', () => {
  it('prices pro rata, rounded up to the atomic unit', () => {
    expect(watchPriceAtomic('0.10', 30)).toBe('100000');
    expect(watchPriceAtomic('0.10', 1)).toBe('3334');
    expect(watchPriceAtomic('0.10', 365)).toBe('1216667');
    expect(watchPriceUsd('0.10', 1)).toBe('0.003334');
    expect(watchPriceUsd('0.10', 30)).toBe('0.1');
  });

  it.each([
    ['http://hooks.example.com/', 'invalid_webhook_url'],
    ['https://user:pw@hooks.example.com/', 'invalid_webhook_url'],
    ['https://127.0.0.1/', 'invalid_webhook_url'],
    ['https://[::1]/', 'invalid_webhook_url'],
    ['https://169.254.169.254/latest', 'invalid_webhook_url'],
    ['https://10.0.0.1/', 'invalid_webhook_url'],
    ['https://2130706433/', 'invalid_webhook_url'],
    ['https://localhost/', 'invalid_webhook_url'],
    ['https://printer.local/', 'invalid_webhook_url'],
    ['https://intranet/', 'invalid_webhook_url'],
    ['https://hooks.internal/', 'invalid_webhook_url'],
    ['file:///etc/passwd', 'invalid_webhook_url'],
    ['javascript:alert(1)', 'invalid_webhook_url'],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, 'invalid_webhook_url'],
    ['not a url', 'invalid_webhook_url'],
  ])('refuses the webhook URL %s', (url, code) => {
    expect(checkWebhookUrl(url, false)).toMatchObject({ code });
  });

  it('admits a public https name, and loopback only when private addresses are allowed', () => {
    expect(checkWebhookUrl('https://hooks.example.com/x?y=1', false)).toEqual({
      ok: true,
      url: 'https://hooks.example.com/x?y=1',
    });
    expect(checkWebhookUrl('http://127.0.0.1:9009/x', true)).toMatchObject({ ok: true });
    expect(checkWebhookUrl('http://169.254.169.254/', true)).toMatchObject({ code: 'invalid_webhook_url' });
  });

  const checkWatchRequest = (body: unknown) =>
    watchRequestReader({ maxDays: 300, allowPrivate: false })(body);

  it.each([
    [null, 'invalid_body'],
    [[], 'invalid_body'],
    [{}, 'missing_domain'],
    [{ domain: 42 }, 'invalid_domain'],
    [{ domain: 'localhost' }, 'invalid_domain'],
    [{ domain: 'x'.repeat(3000) }, 'invalid_domain'],
    [{ domain: 'example.com', days: 0 }, 'invalid_days'],
    [{ domain: 'example.com', days: 301 }, 'invalid_days'],
    [{ domain: 'example.com', days: null }, 'invalid_days'],
    [{ domain: 'example.com', days: true }, 'invalid_days'],
    [{ domain: '  ' }, 'missing_domain'],
    [{ domain: null }, 'missing_domain'],
    [{ domain: 'example.com', webhook_url: 'https:hooks.example.com/h' }, 'invalid_webhook_url'],
    [{ domain: 'example.com', webhook_url: 'https:///hooks.example.com/h' }, 'invalid_webhook_url'],
    [{ domain: 'example.com', webhook_url: ' https://hooks.example.com/h' }, 'invalid_webhook_url'],
    [{ domain: 'example.com', webhook_url: 'https://hooks.example.com/h\n' }, 'invalid_webhook_url'],
    [{ domain: 'example.com', webhook_url: 'https://hooks.example.com:0/h' }, 'invalid_webhook_url'],
    [{ domain: 'example.com', webhook_url: 'https://hooks.example.com:22/h' }, 'invalid_webhook_url'],
    [{ domain: 'example.com', days: 1.5 }, 'invalid_days'],
    [{ domain: 'example.com', days: '30' }, 'invalid_days'],
    [{ domain: 'example.com', webhook_url: 7 }, 'invalid_webhook_url'],
  ])('refuses the body %j', (body, code) => {
    expect(checkWatchRequest(body)).toMatchObject({ ok: false, reason: { code } });
  });

  it('normalizes a Unicode domain and defaults to 30 days', () => {
    expect(checkWatchRequest({ domain: 'https://Bücher.example.com/x' })).toMatchObject({
      ok: true,
      request: { domain: { domain: 'xn--bcher-kva.example.com' }, days: 30, webhookUrl: null },
    });
  });

  it('refuses more days than one payment of $1.00 buys, naming the extension', () => {
    expect(checkWatchRequest({ domain: 'example.com', days: 300 })).toMatchObject({ ok: true });
    const refused = checkWatchRequest({ domain: 'example.com', days: 365 });
    expect(refused).toMatchObject({ ok: false, reason: { code: 'invalid_days' } });
    expect(JSON.stringify(refused)).toContain('/v1/watches/{watch_id}/extend');
  });

  it('derives the most days from the price: 300 at $0.10, 30 at $1.00, 1 above', () => {
    expect(maxDaysAt('0.10')).toBe(300);
    expect(maxDaysAt('1.00')).toBe(30);
    expect(maxDaysAt('0.01')).toBe(3000);
    expect(maxDaysAt('50')).toBe(1);
    // The largest count whose price is at most $1.00.
    expect(BigInt(watchPriceAtomic('0.07', maxDaysAt('0.07')))).toBeLessThanOrEqual(1_000_000n);
    expect(BigInt(watchPriceAtomic('0.07', maxDaysAt('0.07') + 1))).toBeGreaterThan(1_000_000n);
  });
});
