/**
 * Watches end to end on loopback: the official x402 client buys a watch, a real receiver verifies
 * every delivery with the `standardwebhooks` package, and the world flips the site's probe and
 * certificate to raise and clear conditions. Charged iff the 201 reached the client.
 */
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchPriceAtomic } from '../../src/watches/pricing.ts';
import { clientFor, payingFetchFor } from '../world/payer-client.ts';
import { startWatchService, type WatchService } from '../world/watch-service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../world/webhook-receiver.ts';
import { waitFor } from '../support/wait-for.ts';

let service: WatchService;
let receiver: WebhookReceiver;

beforeAll(async () => {
  // A 100-times shorter day: the first retry comes 50 ms after a failed attempt.
  [service, receiver] = await Promise.all([
    startWatchService({ WATCH_DAY_S: '864' }),
    startWebhookReceiver(),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([service?.close(), receiver?.close()]);
});

const FUNDS = 10_000_000n;

function post(body: unknown, headers: Record<string, string> = {}) {
  return fetch(new URL('/v1/watches', service.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function signedFor(payer: Parameters<typeof clientFor>[0], body: unknown): Promise<string> {
  const unpaid = await post(body);
  await unpaid.arrayBuffer();
  const required = decodePaymentRequiredHeader(
    unpaid.headers.get('payment-required') ?? '',
  ) as PaymentRequired;
  return encodePaymentSignatureHeader(await clientFor(payer).createPaymentPayload(required));
}

/** Waits on the store for the attempts the scheduler records (no sleep proves an arrival). */
async function recordedAttempts(watchId: string, count: number) {
  return waitFor(
    async () => {
      const recorded = await service.store.attempts(watchId, 100);
      return recorded.length >= count && recorded;
    },
    { what: `${count} delivery attempts of ${watchId}`, everyMs: 0 },
  );
}

describe('POST /v1/watches', () => {
  it.each([
    ['not json', 'invalid_body'],
    [{ days: 3 }, 'missing_domain'],
    [{ domain: 'localhost' }, 'invalid_domain'],
    [{ domain: 'example.com', days: 0 }, 'invalid_days'],
    [{ domain: 'example.com', days: 2.5 }, 'invalid_days'],
    [
      { domain: 'example.com', webhook_url: 'http://169.254.169.254/latest/meta-data' },
      'invalid_webhook_url',
    ],
    [{ domain: 'example.com', webhook_url: 'https://user:pw@hooks.example.com/' }, 'invalid_webhook_url'],
    [{ domain: 'example.com', webhook_url: 'ftp://hooks.example.com/' }, 'invalid_webhook_url'],
  ])('refuses %j with 400 before any payment logic', async (body, code) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.headers.get('payment-required')).toBeNull();
    expect(await res.json()).toMatchObject({ code });
  });

  it('resolves the webhook before any payment logic: no address or a refused one is 400, uncharged', async () => {
    service.resolves.set('nowhere.example.com', []);
    service.resolves.set('metadata.example.com', ['169.254.169.254']);
    for (const [host, reason] of [
      ['nowhere.example.com', /has no address/],
      ['metadata.example.com', /169\.254\.169\.254/],
    ] as const) {
      const body = { domain: 'example.com', webhook_url: `https://${host}/hooks` };
      const res = await post(body, { 'payment-signature': 'not even read' });
      expect(res.status).toBe(400);
      expect(res.headers.get('payment-required')).toBeNull();
      expect(await res.json()).toMatchObject({
        code: 'invalid_webhook_url',
        detail: expect.stringMatching(reason),
      });
    }
    for (const url of [
      'https:hooks.example.com/h',
      'https:///hooks.example.com/h',
      ' https://hooks.example.com/h ',
      'https://hooks.example.com:0/h',
      'https://hooks.example.com:22/h',
    ]) {
      const res = await post({ domain: 'example.com', webhook_url: url });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_webhook_url' });
    }
    const nullDays = await post({ domain: 'example.com', days: null });
    expect(nullDays.status).toBe(400);
    expect(await nullDays.json()).toMatchObject({ code: 'invalid_days' });
    const year = await post({ domain: 'example.com', days: 365 });
    expect(year.status).toBe(400);
    expect(await year.json()).toMatchObject({
      code: 'invalid_days',
      detail: expect.stringContaining('/extend'),
    });
  });

  it('refuses a body over the limit with 413', async () => {
    const res = await post({ domain: 'example.com', pad: 'x'.repeat(100_000) });
    expect(res.status).toBe(413);
  });

  it('asks the pro-rata price in its 402', async () => {
    const res = await post({ domain: 'example.com', days: 7 });
    expect(res.status).toBe(402);
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '');
    expect(required.accepts[0]?.amount).toBe(watchPriceAtomic('0.10', 7));
    // The body rides in the resource's query: the payload a client signs echoes it.
    expect(required.resource.url).toBe(`${service.url.origin}/v1/watches?domain=example.com&days=7`);
    // What a listing catalogue reads: the bazaar extension declaring the JSON body.
    const bazaar = required.extensions?.bazaar as Parameters<typeof validateDiscoveryExtension>[0];
    expect(validateDiscoveryExtension(bazaar)).toMatchObject({ valid: true });
    expect(JSON.stringify(bazaar.info)).toContain('"bodyType":"json"');
    // A client may make the purchase idempotent (x402 payment-identifier).
    expect(required.extensions).toHaveProperty('payment-identifier');
    // Listed as the checks are: service name, tags; the body's challenge declares the output whole.
    expect(required.resource).toMatchObject({ serviceName: expect.any(String), tags: expect.any(Array) });
    expect(res.headers.get('payment-required')?.length).toBeLessThan(4096);
    const body = (await res.json()) as {
      detail: string;
      extensions: { bazaar: { info: { output?: unknown } } };
    };
    expect(validateDiscoveryExtension(body.extensions.bazaar as typeof bazaar)).toMatchObject({
      valid: true,
    });
    expect(JSON.stringify(body.extensions.bazaar)).toContain('"webhook_secret"');
    // The body describes the watch in words, not as a check.
    const { detail } = body;
    expect(detail).toMatch(/^This watch costs \$0\.023334 in USDC for 7 days\. /);
    const month = await post({ domain: 'example.com' });
    expect(((await month.json()) as { detail: string }).detail).toMatch(
      /^This watch costs \$0\.10 in USDC for 30 days\. /,
    );
  });

  it('charges nothing and creates nothing when the first check fails', async () => {
    const payer = await service.newPayer(FUNDS);
    const before = await service.store.countByStatus();
    service.site.failing = true;
    try {
      const res = await payingFetchFor(payer)(new URL('/v1/watches', service.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ domain: 'example.com', days: 2 }),
      });
      expect(res.status).toBe(502);
      expect(res.headers.get('payment-response')).toBeNull();
    } finally {
      service.site.failing = false;
    }
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS);
    expect(await service.store.countByStatus()).toEqual(before);
  });
});

describe('a signature buys one watch, the one it was signed for', () => {
  // A receiver of its own: the purchase below must not verify against this file's shared one.
  let own: WebhookReceiver;
  beforeAll(async () => {
    own = await startWebhookReceiver();
  });
  afterAll(async () => {
    await own?.close();
  });

  it('answers every copy of a settled purchase with the same 201 and receipt, charging once', async () => {
    const payer = await service.newPayer(FUNDS);
    const body = { domain: 'example.com', days: 4, webhook_url: `${own.url.origin}/hooks` };
    const signature = await signedFor(payer, body);
    const first = await post(body, { 'payment-signature': signature });
    expect(first.status).toBe(201);
    const created = (await first.json()) as Record<string, unknown>;
    for (let copy = 0; copy < 2; copy += 1) {
      const again = await post(body, { 'payment-signature': signature });
      expect(again.status).toBe(201);
      expect(again.headers.get('payment-response')).toBe(first.headers.get('payment-response'));
      const same = (await again.json()) as Record<string, unknown>;
      for (const field of ['watch_id', 'token', 'webhook_secret', 'expires_at', 'status']) {
        expect(same[field]).toEqual(created[field]);
      }
    }
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - BigInt(watchPriceAtomic('0.10', 4)));
  });

  it('refuses another domain, days or webhook_url with 402 resource_mismatch, charging nothing', async () => {
    const payer = await service.newPayer(FUNDS);
    const body = { domain: 'example.com', days: 5, webhook_url: `${own.url.origin}/hooks` };
    const signature = await signedFor(payer, body);
    for (const other of [
      { ...body, domain: 'example.org' },
      { ...body, days: 6 },
      { ...body, webhook_url: `${own.url.origin}/other` },
      { domain: body.domain, days: body.days },
    ]) {
      const res = await post(other, { 'payment-signature': signature });
      expect(res.status).toBe(402);
      const required = decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '');
      expect(required.error).toMatch(/^resource_mismatch: /);
      expect(await res.json()).toMatchObject({ reason: expect.stringMatching(/^resource_mismatch/) });
    }
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS);
    // The refused copies never used the authorization: it still buys what it was signed for.
    expect((await post(body, { 'payment-signature': signature })).status).toBe(201);
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - BigInt(watchPriceAtomic('0.10', 5)));
  });
});

describe('a year with a standard client: 300 days, then 65 more', () => {
  it('buys the most one $1.00 payment buys, then extends it, each charged once and bound to its body', async () => {
    const payer = await service.newPayer(FUNDS);
    const paying = payingFetchFor(payer);
    const bought = await paying(new URL('/v1/watches', service.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ domain: 'example.com', days: 300 }),
    });
    expect(bought.status).toBe(201);
    const watch = (await bought.json()) as { watch_id: string; token: string; expires_at: string };
    const year300 = BigInt(watchPriceAtomic('0.10', 300));
    expect(year300).toBe(1_000_000n);
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - year300);

    const extendUrl = new URL(`/v1/watches/${watch.watch_id}/extend`, service.url);
    const extendWith = (send: typeof fetch, body: unknown, token = watch.token) =>
      send(extendUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    // Refused before any payment logic: a wrong token, bad days; never charged.
    expect((await extendWith(fetch, { days: 65 }, `${watch.token}x`)).status).toBe(404);
    for (const days of [0, 301, null, '65']) {
      const res = await extendWith(fetch, { days });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_days' });
    }
    const unpaid = await extendWith(fetch, { days: 65 });
    expect(unpaid.status).toBe(402);
    const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required') ?? '');
    expect(required.accepts[0]?.amount).toBe(watchPriceAtomic('0.10', 65));
    expect(required.resource.url).toBe(`${extendUrl.href}?days=65`);
    expect(((await unpaid.json()) as { detail: string }).detail).toMatch(
      /^Extending this watch by 65 days costs \$0\.216667 in USDC\. /,
    );
    expect(required.extensions).toHaveProperty('payment-identifier');
    // A signature for 65 days extends by 65 days only.
    const signature = encodePaymentSignatureHeader(await clientFor(payer).createPaymentPayload(required));
    const other = await send(extendUrl, { days: 64 }, signature, watch.token);
    expect(other.status).toBe(402);
    expect(decodePaymentRequiredHeader(other.headers.get('payment-required') ?? '').error).toMatch(
      /^resource_mismatch/,
    );
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - year300);

    const extended = await paying(extendUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${watch.token}` },
      body: JSON.stringify({ days: 65 }),
    });
    expect(extended.status).toBe(200);
    const after = (await extended.json()) as {
      watch_id: string;
      days: number;
      expires_at: string;
      status: string;
    };
    expect(after).toMatchObject({ watch_id: watch.watch_id, days: 365, status: 'active' });
    const dayMs = service.config.watches.dayS * 1000;
    expect(Date.parse(after.expires_at) - Date.parse(watch.expires_at)).toBe(65 * dayMs);
    const charged = year300 + BigInt(watchPriceAtomic('0.10', 65));
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - charged);

    // The token still manages it; the events are kept (watch.created and nothing else).
    const status = await fetch(new URL(`/v1/watches/${watch.watch_id}`, service.url), {
      headers: { authorization: `Bearer ${watch.token}` },
    });
    expect(await status.json()).toMatchObject({ days: 365, events: [{ type: 'watch.created' }] });
  });

  async function send(url: URL, body: unknown, signature: string, token: string) {
    return fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'payment-signature': signature,
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(body),
    });
  }
});

describe('a watch from purchase to cancellation', () => {
  it('is bought once, alerts on each change of state, is read by pull, and ends on cancel', async () => {
    const payer = await service.newPayer(FUNDS);
    const body = { domain: 'Bücher.example.com', days: 3, webhook_url: `${receiver.url.origin}/hooks` };
    const signature = await signedFor(payer, body);
    const res = await post(body, { 'payment-signature': signature });
    expect(res.status).toBe(201);
    expect(res.headers.get('payment-response')).not.toBeNull();
    const created = (await res.json()) as Record<string, unknown> & { watch_id: string; token: string };
    expect(created).toMatchObject({
      domain: 'xn--bcher-kva.example.com',
      days: 3,
      status: 'active',
      conditions: [],
      interval_s: 1,
    });
    expect(String(created.refund)).toMatch(/no refund/);
    expect(String(created.webhook_secret)).toMatch(/^whsec_/);
    receiver.secret = String(created.webhook_secret);
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - BigInt(watchPriceAtomic('0.10', 3)));

    const welcome = await receiver.next((e) => e.type === 'watch.created');
    expect(welcome).toMatchObject({ verified: true });
    expect(welcome.webhookId).toBe(welcome.id);

    // The world changes: the probe fails and the certificate runs low.
    service.site.probeOk = false;
    service.site.lifetimeLeft = 0.1;
    const raised = await receiver.next((e) => e.type === 'watch.alert');
    expect(raised).toMatchObject({
      verified: true,
      data: { raised: ['cert.lifetime_low', 'probe.failed'], cleared: [] },
    });
    service.site.probeOk = true;
    service.site.lifetimeLeft = 0.5;
    const cleared = await receiver.next(
      (e) => e.type === 'watch.alert' && (e.data.cleared as string[]).length > 0,
    );
    expect(cleared.data).toMatchObject({ raised: [], cleared: ['cert.lifetime_low', 'probe.failed'] });
    // One event per change of state: the checks in between raised nothing.
    expect(receiver.received.filter((e) => e.type === 'watch.alert')).toHaveLength(2);

    // The receiver answered before the service recorded its answer.
    await recordedAttempts(created.watch_id, 3);
    const auth = { authorization: `Bearer ${created.token}` };
    const status = await fetch(new URL(`/v1/watches/${created.watch_id}`, service.url), { headers: auth });
    expect(status.status).toBe(200);
    const state = (await status.json()) as { events: { id: string; type: string }[]; deliveries: unknown[] };
    expect(state).not.toHaveProperty('token');
    expect(state).not.toHaveProperty('webhook_secret');
    expect(state.events.map((e) => e.type).slice(0, 3)).toEqual([
      'watch.created',
      'watch.alert',
      'watch.alert',
    ]);
    expect(state.deliveries.length).toBeGreaterThanOrEqual(3);
    const first = state.events[0]?.id ?? '';
    const since = await fetch(new URL(`/v1/watches/${created.watch_id}?since=${first}`, service.url), {
      headers: auth,
    });
    expect(((await since.json()) as { events: { id: string }[] }).events[0]?.id).not.toBe(first);
    // No event id known yet (the README's loop starts with `?since=`): from the start.
    const fromStart = await fetch(new URL(`/v1/watches/${created.watch_id}?since=`, service.url), {
      headers: auth,
    });
    expect(fromStart.status).toBe(200);
    expect(((await fromStart.json()) as { events: { id: string }[] }).events[0]?.id).toBe(first);

    // A wrong token and an unknown id are the same 404.
    const wrong = await fetch(new URL(`/v1/watches/${created.watch_id}`, service.url), {
      // The last character changed (one in 16 tokens ends in A already).
      headers: {
        authorization: `Bearer ${created.token.slice(0, -1)}${created.token.endsWith('A') ? 'B' : 'A'}`,
      },
    });
    const unknown = await fetch(new URL('/v1/watches/wat_AAAAAAAAAAAAAAAAAAAAAA', service.url), {
      headers: auth,
    });
    expect(wrong.status).toBe(404);
    expect(unknown.status).toBe(404);
    const detail = async (r: Response) => ((await r.json()) as { detail: string }).detail;
    expect(await detail(wrong)).toBe(await detail(unknown));

    // The same signature again buys nothing more: it is answered with the same watch.
    const replay = await post(body, { 'payment-signature': signature });
    expect(replay.status).toBe(201);
    expect(await replay.json()).toMatchObject({ watch_id: created.watch_id, token: created.token });
    expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - BigInt(watchPriceAtomic('0.10', 3)));

    const cancelled = await fetch(new URL(`/v1/watches/${created.watch_id}`, service.url), {
      method: 'DELETE',
      headers: auth,
    });
    expect(await cancelled.json()).toMatchObject({ status: 'cancelled', next_check_at: null });
    expect(await receiver.next((e) => e.type === 'watch.ended')).toMatchObject({
      verified: true,
      data: { reason: 'cancelled' },
    });
  }, 60_000);
});

describe('conditions a receiver can rely on', () => {
  async function buyWatching(domain: string) {
    const payer = await service.newPayer(FUNDS);
    const body = { domain, days: 1, webhook_url: `${receiver.url.origin}/hooks` };
    const res = await post(body, { 'payment-signature': await signedFor(payer, body) });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { watch_id: string; webhook_secret: string; conditions: string[] };
    receiver.secret = created.webhook_secret;
    await receiver.next((e) => e.type === 'watch.created' && e.watch_id === created.watch_id);
    return created;
  }

  /** Waits until the watch committed a check that began at or after `since`. */
  async function checkedSince(watchId: string, since: number) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const watch = await service.store.get(watchId);
      if ((watch?.lastCheckedAt ?? 0) > since) return watch;
      if (Date.now() > deadline) throw new Error(`watch ${watchId} was not checked after ${since}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('carries a condition a failed probe hides, raising probe.failed only once seen twice', async () => {
    service.site.renewedNotDeployed = true;
    try {
      const created = await buyWatching('hidden.example.com');
      expect(created.conditions).toEqual(['cert.renewed_not_deployed']);
      const looked = service.site.looks?.length ?? 0;
      service.site.probeOk = false;
      const down = await receiver.next((e) => e.type === 'watch.alert' && e.watch_id === created.watch_id);
      expect(down).toMatchObject({
        verified: true,
        data: {
          raised: ['probe.failed'],
          cleared: [],
          unjudged: ['cert.renewed_not_deployed'],
          conditions: ['cert.renewed_not_deployed', 'probe.failed'],
        },
      });
      // Raised after a second failed look, one confirmation interval (1 s here) after the first.
      const failed = (service.site.looks ?? []).slice(looked).filter((look) => !look.probeOk);
      expect(failed.length).toBeGreaterThanOrEqual(2);
      // (A timer may fire a millisecond early by the wall clock.)
      expect((failed[1]?.at ?? 0) - (failed[0]?.at ?? 0)).toBeGreaterThanOrEqual(990);
      service.site.probeOk = true;
      const up = await receiver.next(
        (e) => e.type === 'watch.alert' && e.watch_id === created.watch_id && e.id !== down.id,
      );
      expect(up.data).toMatchObject({ raised: [], cleared: ['probe.failed'], unjudged: [] });
      expect(up.data.conditions).toEqual(['cert.renewed_not_deployed']);
    } finally {
      service.site.probeOk = true;
      service.site.renewedNotDeployed = false;
    }
  }, 60_000);

  it('raises nothing for one flaky timeout', async () => {
    const created = await buyWatching('flaky.example.com');
    const looked = service.site.looks?.length ?? 0;
    service.site.probeFailsNext = 1;
    const deadline = Date.now() + 30_000;
    while ((service.site.looks ?? []).slice(looked).every((look) => look.probeOk)) {
      if (Date.now() > deadline) throw new Error('no check looked at the flaky probe');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const flakyAt = (service.site.looks ?? []).slice(looked).find((look) => !look.probeOk)?.at ?? 0;
    // A check of this watch that began after the flaky look has been committed: it raised nothing.
    await checkedSince(created.watch_id, flakyAt + 1000);
    const events = await service.store.events(created.watch_id, 0, 100);
    expect(events.filter((event) => event.type === 'watch.alert')).toEqual([]);
  }, 60_000);
});

describe('deliveries a receiver cannot steer', () => {
  async function buy(body: Record<string, unknown>) {
    const payer = await service.newPayer(FUNDS);
    const res = await post(body, { 'payment-signature': await signedFor(payer, body) });
    expect(res.status).toBe(201);
    return (await res.json()) as { watch_id: string; token: string };
  }

  it('refuses a name that now resolves to the metadata address, connecting nowhere', async () => {
    // Bought while the name pointed at loopback (judged before payment); then it changes.
    service.resolves.set('moving.example.com', ['127.0.0.1']);
    const watch = await buy({ domain: 'example.com', days: 1, webhook_url: 'https://moving.example.com/in' });
    service.resolves.set('moving.example.com', ['169.254.169.254']);
    const before = service.connections.length;
    for (let seen = 1; ; seen += 1) {
      const attempts = await recordedAttempts(watch.watch_id, seen);
      const blocked = attempts.find((attempt) => attempt.error === 'blocked_address');
      if (blocked) {
        expect(blocked).toMatchObject({ status: null });
        break;
      }
    }
    expect(service.connections.slice(before)).not.toContain('169.254.169.254');
  }, 30_000);

  it('does not follow a redirect, and stops at 410', async () => {
    const redirecting = await startWebhookReceiver();
    let answered = 0;
    redirecting.answer = () => ((answered += 1) === 1 ? 302 : 410);
    try {
      const watch = await buy({ domain: 'example.com', days: 1, webhook_url: `${redirecting.url.origin}/r` });
      const recorded = await recordedAttempts(watch.watch_id, 2);
      const first = recorded[0];
      expect(first).toMatchObject({ attempt: 1, status: 302, error: 'http_status' });
      // The 410 stops the URL: no event is sent there again.
      const gone = recorded.find((a) => a.status === 410);
      expect(gone).toMatchObject({ error: 'gone' });
      if (gone?.event_id === first?.event_id) expect(gone).toMatchObject({ attempt: 2 });
      expect(redirecting.received.filter((e) => e.webhookId === first?.event_id).map((e) => e.id)).toEqual(
        redirecting.received.filter((e) => e.webhookId === first?.event_id).map(() => first?.event_id),
      );
      expect(redirecting.requests.every((r) => r.url.pathname === '/r')).toBe(true);
      expect((await service.store.get(watch.watch_id))?.webhookGone).toBe(true);
    } finally {
      await redirecting.close();
    }
  }, 30_000);
});

describe('MCP tools', () => {
  it('watch_domain is paid like the checks; watch_status and watch_cancel take the token', async () => {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } =
      await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const mcp = new Client({ name: 'watch-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp', service.url)));
    try {
      const listed = (await mcp.listTools()).tools;
      const tools = listed.map((tool) => tool.name);
      expect(tools).toEqual(expect.arrayContaining(['watch_domain', 'watch_status', 'watch_cancel']));
      // The site-health result is named, not embedded (it was 37 KB in each watch tool).
      for (const tool of listed.filter(({ name }) => name.startsWith('watch_'))) {
        expect(JSON.stringify(tool).length, tool.name).toBeLessThan(8_000);
      }
      const resultSchema = listed.find(({ name }) => name === 'watch_domain')?.outputSchema?.properties
        ?.result;
      expect(JSON.stringify(resultSchema)).toContain('site_health');

      const outOfRange = await mcp.callTool({
        name: 'watch_domain',
        arguments: { domain: 'example.com', days: 400 },
      });
      expect(outOfRange.isError).toBe(true);
      const invalid = await mcp.callTool({
        name: 'watch_domain',
        arguments: { domain: 'example.com', webhook_url: 'https://user:pw@hooks.example.com/' },
      });
      expect(invalid).toMatchObject({ isError: true, structuredContent: { code: 'invalid_webhook_url' } });
      service.resolves.set('nowhere.example.com', []);
      const unreachable = await mcp.callTool({
        name: 'watch_domain',
        arguments: { domain: 'example.com', webhook_url: 'https://nowhere.example.com/h' },
      });
      expect(unreachable).toMatchObject({
        isError: true,
        structuredContent: { code: 'invalid_webhook_url' },
      });

      const args = { domain: 'example.com', days: 10 };
      const unpaid = await mcp.callTool({ name: 'watch_domain', arguments: args });
      const required = unpaid.structuredContent as PaymentRequired;
      expect(unpaid.isError).toBe(true);
      expect(required.accepts[0]?.amount).toBe(watchPriceAtomic('0.10', 10));
      const payer = await service.newPayer(FUNDS);
      const payment = await clientFor(payer).createPaymentPayload(required);
      const paid = await mcp.callTool({
        name: 'watch_domain',
        arguments: args,
        _meta: { 'x402/payment': payment },
      });
      const created = paid.structuredContent as { watch_id: string; token: string; webhook_secret: null };
      expect(paid.isError).toBeFalsy();
      expect(created.webhook_secret).toBeNull();
      expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - BigInt(watchPriceAtomic('0.10', 10)));
      // The same payment again: the same watch and receipt, no second charge; for other arguments, refused.
      const copy = await mcp.callTool({
        name: 'watch_domain',
        arguments: args,
        _meta: { 'x402/payment': payment },
      });
      expect(copy.structuredContent).toEqual(paid.structuredContent);
      expect(copy._meta).toEqual(paid._meta);
      const other = await mcp.callTool({
        name: 'watch_domain',
        arguments: { ...args, domain: 'example.org' },
        _meta: { 'x402/payment': payment },
      });
      expect(other).toMatchObject({
        isError: true,
        structuredContent: { error: expect.stringMatching(/^resource_mismatch: /) },
      });
      expect(await service.chain.balanceOf(payer.address)).toBe(FUNDS - BigInt(watchPriceAtomic('0.10', 10)));

      const wrong = await mcp.callTool({
        name: 'watch_status',
        arguments: { watch_id: created.watch_id, token: 'x' },
      });
      expect(wrong).toMatchObject({ isError: true, structuredContent: { code: 'not_found' } });
      const status = await mcp.callTool({
        name: 'watch_status',
        arguments: { watch_id: created.watch_id, token: created.token },
      });
      expect(status.structuredContent).toMatchObject({
        status: 'active',
        events: [{ type: 'watch.created' }],
      });
      const cancelled = await mcp.callTool({
        name: 'watch_cancel',
        arguments: { watch_id: created.watch_id, token: created.token },
      });
      expect(cancelled.structuredContent).toMatchObject({ status: 'cancelled' });
    } finally {
      await mcp.close();
    }
  }, 30_000);
});
