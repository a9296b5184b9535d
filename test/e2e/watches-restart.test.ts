/**
 * A watch survives `kill -9`: an `npm start` process (self-settlement on anvil, the closed world
 * for its upstreams, the embedded SQLite store) sells a watch whose webhook refuses deliveries;
 * the process is killed outright and started again on the same WATCH_DB_PATH and key. The watch
 * is still managed by its token, checks resume on their schedule, and the undelivered
 * `watch.created` arrives with its original webhook-id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientFor } from '../world/payer-client.ts';
import {
  type SelfSettlingService,
  type SettlementWorld,
  startSettlementWorld,
} from '../world/self-settling-service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../world/webhook-receiver.ts';
import { waitFor } from '../support/wait-for.ts';

let settlement: SettlementWorld;
let receiver: WebhookReceiver;
let dir: string;
const services: SelfSettlingService[] = [];

beforeAll(async () => {
  [settlement, receiver] = await Promise.all([startSettlementWorld(), startWebhookReceiver()]);
  dir = mkdtempSync(join(tmpdir(), 'watches-restart-'));
}, 120_000);
afterAll(async () => {
  await Promise.all(services.map((service) => service.close()));
  await Promise.all([settlement?.close(), receiver?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

it('loses no watch and no undelivered event to kill -9, and checks resume', async () => {
  const env = {
    WATCH_DB_PATH: join(dir, 'watches.db'),
    WATCH_SECRET_KEY: 'restart-test-watch-key-0123456789abcdef',
    WATCH_INTERVAL_S: '2',
    // A stable origin: the signed resource is the same on both processes.
    PUBLIC_BASE_URL: 'https://checks.example.test',
  };
  const first = await settlement.startService({ env });
  services.push(first);
  receiver.answer = () => 503;

  const payer = await settlement.newPayer(10_000_000n);
  const body = JSON.stringify({
    domain: 'healthy-shop.com',
    days: 2,
    webhook_url: `${receiver.url.origin}/w`,
  });
  const post = (headers: Record<string, string> = {}) =>
    fetch(new URL('/v1/watches', first.process.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
  const unpaid = await post();
  const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required') ?? '');
  const payload = await clientFor(payer).createPaymentPayload(required);
  const res = await post({ 'payment-signature': encodePaymentSignatureHeader(payload) });
  expect(res.status).toBe(201);
  const watch = (await res.json()) as { watch_id: string; token: string; webhook_secret: string };
  receiver.secret = watch.webhook_secret;
  const refused = await receiver.next((e) => e.type === 'watch.created');

  first.process.signal('SIGKILL');
  expect(await first.process.exited).toBeNull();
  const restartedAt = Date.now();
  receiver.answer = () => 204;
  const second = await settlement.startService({ env });
  services.push(second);

  const redelivered = await receiver.next(
    (e) => e.type === 'watch.created' && receiver.received.indexOf(e) > 0,
  );
  expect(redelivered).toMatchObject({ verified: true, webhookId: refused.webhookId });

  const status = () =>
    fetch(new URL(`/v1/watches/${watch.watch_id}`, second.process.url), {
      headers: { authorization: `Bearer ${watch.token}` },
    }).then((r) => r.json() as Promise<{ status: string; last_checked_at: string }>);
  // Checks resume: one runs after the restart.
  const state = await waitFor(
    async () => {
      const state = await status();
      return Date.parse(state.last_checked_at) >= restartedAt && state;
    },
    { what: 'a check after the restart', withinMs: 90_000, everyMs: 50 },
  );
  expect(state.status).toBe('active');
}, 120_000);
