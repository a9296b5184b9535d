/**
 * The paying HTTP clients of the tests (`payFor` and `payingFetchFor`) give up when their signal
 * says so, after a garbage collection too. `@x402/fetch` sends clones of the caller's request, and
 * a clone's signal stops following the caller's once the copies are collected
 * (nodejs/undici#4068): the charged-iff-delivered cases that abort at a given stage then saw the
 * answer they meant to walk away from, now and then in CI.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { encodePaymentRequiredHeader } from '@x402/core/http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { BASE_USDC_ADDRESS } from '../../../src/payments/chain/local-contracts.ts';
import { type LoopbackServer, startLoopbackServer } from '../../world/loopback-server.ts';
import { payingFetchFor } from '../../world/payer-client.ts';
import { payFor } from '../../world/paying-clients.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let service: LoopbackServer;
const closed: string[] = [];

/** A 402 for the unpaid request; the paid one is never answered, and its connection's close is recorded. */
beforeAll(async () => {
  service = await startLoopbackServer((req, res, url) => {
    if (req.headers['payment-signature']) {
      req.socket.once('close', () => closed.push(url.pathname));
      return;
    }
    const challenge = encodePaymentRequiredHeader({
      x402Version: 2,
      error: 'Payment required',
      resource: { url: url.href, description: 'a check', mimeType: 'application/json' },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:8453',
          amount: '10000',
          asset: BASE_USDC_ADDRESS,
          payTo: privateKeyToAccount(generatePrivateKey()).address,
          maxTimeoutSeconds: 45,
          extra: { name: 'USD Coin', version: '2' },
        },
      ],
    });
    res.writeHead(402, { 'payment-required': challenge, 'content-type': 'application/json' });
    res.end('{}');
  });
});
afterAll(() => service.close());

/** Aborts once the paid request for `path` has arrived, a garbage collection first. */
function abortOnPaidRequest(path: string): AbortSignal {
  const controller = new AbortController();
  void service
    .arrival((request) => request.url.pathname === path && request.headers['payment-signature'] !== undefined)
    .then(() => {
      gc();
      controller.abort();
    });
  return controller.signal;
}

it('payFor gives up on the paid request when its signal aborts after a garbage collection', async () => {
  const call = await payFor({
    transport: 'http',
    baseUrl: service.url,
    route: '/v1/cert',
    tool: 'check_cert',
    domain: 'example.com',
    payer: privateKeyToAccount(generatePrivateKey()),
    signal: abortOnPaidRequest('/v1/cert'),
  });
  expect(call.answer).toMatchObject({ aborted: true, delivered: false, status: null });
  await expect.poll(() => closed).toEqual(['/v1/cert']);
});

it('payingFetchFor gives up on the paid request when its signal aborts after a garbage collection', async () => {
  const paying = payingFetchFor(privateKeyToAccount(generatePrivateKey()));
  const outcome = await paying(new URL('/v1/dns?domain=example.com', service.url), {
    signal: abortOnPaidRequest('/v1/dns'),
  }).then(
    (res) => `answered ${res.status}`,
    (error: unknown) => (error instanceof Error ? error.name : String(error)),
  );
  expect(outcome).toBe('AbortError');
  await expect.poll(() => closed).toContain('/v1/dns');
});
