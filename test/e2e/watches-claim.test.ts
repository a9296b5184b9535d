/**
 * A client that leaves while its watch's payment settles claims that watch once: an `npm start`
 * process (self-settlement on anvil behind the RPC fault proxy) holds the settlement's receipt
 * until the client has gone; the same request with the same signature then gets the 201 of the
 * same watch (the id and token the service derives from that signature), a third copy gets none,
 * and the payer is charged the price once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  decodePaymentRequiredHeader,
  decodePaymentSignatureHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWatchSecrets } from '../../src/watches/secrets.ts';
import { exactAuthorizationOf } from '../../src/payments/exact-authorization.ts';
import { watchPriceAtomic } from '../../src/watches/pricing.ts';
import { clientFor } from '../world/payer-client.ts';
import {
  type SelfSettlingService,
  type SettlementWorld,
  startSettlementWorld,
} from '../world/self-settling-service.ts';
import { QUIET_AFTER_ABORT_MS, QUIET_AFTER_ANSWER_MS, quiet } from './charged-iff-delivered.ts';

const WATCH_SECRET_KEY = 'claim-test-watch-key-0123456789abcdef';
const FUNDS = 10_000_000n;

let settlement: SettlementWorld;
let service: SelfSettlingService;
let dir: string;

beforeAll(async () => {
  settlement = await startSettlementWorld();
  dir = mkdtempSync(join(tmpdir(), 'watches-claim-'));
  service = await settlement.startService({
    env: { WATCH_DB_PATH: join(dir, 'watches.db'), WATCH_SECRET_KEY },
  });
}, 120_000);
afterAll(async () => {
  await service?.close();
  await settlement?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('a client gone during settlement claims the same watch once with the same request and signature', async () => {
  const at = { settlement, service };
  const payer = await settlement.newPayer(FUNDS);
  const body = JSON.stringify({ domain: 'healthy-shop.com', days: 2 });
  const post = (headers: Record<string, string> = {}, signal?: AbortSignal) =>
    fetch(new URL('/v1/watches', service.process.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      ...(signal ? { signal } : {}),
    });
  const unpaid = await post();
  const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required') ?? '');
  const signature = encodePaymentSignatureHeader(await clientFor(payer).createPaymentPayload(required));

  service.proxy.reset();
  service.proxy.rule('eth_getTransactionReceipt', { holdRequest: 'until-released' });
  const leaving = new AbortController();
  const first = post({ 'payment-signature': signature }, leaving.signal);
  await service.proxy.until('eth_getTransactionReceipt');
  leaving.abort();
  await expect(first).rejects.toThrow();
  // The receipt goes through: the payment settles for a client no longer there.
  service.proxy.reset();
  await quiet(at, QUIET_AFTER_ABORT_MS);
  const price = watchPriceAtomic('0.10', 2);
  expect(FUNDS - (await settlement.chain.balanceOf(payer.address))).toBe(BigInt(price));

  const claimed = await post({ 'payment-signature': signature });
  expect(claimed.status).toBe(201);
  expect(claimed.headers.get('payment-response')).not.toBeNull();
  const watch = (await claimed.json()) as { watch_id: string; token: string; status: string };
  const secrets = createWatchSecrets(WATCH_SECRET_KEY);
  const id = await secrets.watchId(
    exactAuthorizationOf(decodePaymentSignatureHeader(signature))?.signature ?? '',
  );
  expect(watch.watch_id).toBe(id);
  expect(watch.token).toBe(await secrets.token(id));

  // Handed over now, and still the same watch for every further copy: the same 201 and receipt.
  const again = await post({ 'payment-signature': signature });
  expect(again.status).toBe(201);
  expect(again.headers.get('payment-response')).toBe(claimed.headers.get('payment-response'));
  expect(await again.json()).toMatchObject({
    watch_id: id,
    token: watch.token,
    webhook_secret: (watch as { webhook_secret?: unknown }).webhook_secret,
  });
  await quiet(at, QUIET_AFTER_ANSWER_MS);
  expect(FUNDS - (await settlement.chain.balanceOf(payer.address))).toBe(BigInt(price));

  const status = await fetch(new URL(`/v1/watches/${id}`, service.process.url), {
    headers: { authorization: `Bearer ${watch.token}` },
  });
  expect(status.status).toBe(200);
  const state = (await status.json()) as { status: string; events: { type: string }[] };
  expect(state.status).toBe('active');
  expect(state.events.filter((event) => event.type === 'watch.created')).toHaveLength(1);
}, 120_000);
