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

  it('refuses a body over the limit with 413', async () => {
    const res = await post({ domain: 'example.com', pad: 'x'.repeat(100_000) });
    expect(res.status).toBe(413);
  });

  it('asks the pro-rata price in its 402', async () => {
    const res = await post({ domain: 'example.com', days: 7 });
    expect(res.status).toBe(402);
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '');
    expect(required.accepts[0]?.amount).toBe(watchPriceAtomic('0.10', 7));
    expect(required.resource.url).toBe(`${service.url.origin}/v1/watches`);
    // What a listing catalogue reads: the bazaar extension declaring the JSON body.
    const bazaar = required.extensions?.bazaar as Parameters<typeof validateDiscoveryExtension>[0];
    expect(validateDiscoveryExtension(bazaar)).toMatchObject({ valid: true });
    expect(JSON.stringify(bazaar.info)).toContain('"bodyType":"json"');
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

    // The same signature again buys nothing more.
    const replay = await post(body, { 'payment-signature': signature });
    expect(replay.status).toBe(402);
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

describe('deliveries a receiver cannot steer', () => {
  async function buy(body: Record<string, unknown>) {
    const payer = await service.newPayer(FUNDS);
    const res = await post(body, { 'payment-signature': await signedFor(payer, body) });
    expect(res.status).toBe(201);
    return (await res.json()) as { watch_id: string; token: string };
  }

  it('refuses a name that now resolves to the metadata address, connecting nowhere', async () => {
    service.resolves.set('hooks.example.com', ['169.254.169.254']);
    const before = service.connections.length;
    const watch = await buy({ domain: 'example.com', days: 1, webhook_url: 'https://hooks.example.com/in' });
    const [first] = await recordedAttempts(watch.watch_id, 1);
    expect(first).toMatchObject({ attempt: 1, status: null, error: 'blocked_address' });
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
      const tools = (await mcp.listTools()).tools.map((tool) => tool.name);
      expect(tools).toEqual(expect.arrayContaining(['watch_domain', 'watch_status', 'watch_cancel']));

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
