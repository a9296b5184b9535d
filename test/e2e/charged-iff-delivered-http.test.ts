/**
 * Charged if and only if delivered, over HTTP with the official `@x402/fetch` client: the real
 * service process in self-settlement mode behind an RPC fault proxy (see charged-iff-delivered.ts),
 * plus HEAD and the other methods on the paid routes, which must never run a check or charge.
 */
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { describe, expect, it } from 'vitest';
import { paidOperations } from '../../src/catalog.ts';
import { clientFor } from '../world/payer-client.ts';
import { describeChargedIffDelivered, FUNDS, OPERATION, quiet } from './charged-iff-delivered.ts';

const lab = describeChargedIffDelivered(
  'http',
  'HTTP: the payer is charged the price if and only if the result was delivered',
);

/** Requests every upstream fake of the world has received so far. */
function upstreamRequests(): number {
  const { world } = lab().settlement;
  const fakes = [world.crtsh, world.certspotter, world.doh, world.dohFallback, world.rdapBootstrap];
  return [...fakes, world.rdapRegistry, world.rdapRegistry.registrar, world.site].reduce(
    (sum, fake) => sum + fake.requests.length,
    0,
  );
}

// After the concurrent cases: these count the world's upstream requests, so nothing else may run.
describe('HTTP: other methods on the paid routes never run a check or charge', () => {
  it.for(paidOperations.map((operation) => operation.route))(
    'HEAD %s answers 402 like GET, with or without a payment, with no upstream request',
    async (route) => {
      await lab().withService(async (service) => {
        const url = new URL(`${route}?domain=${OPERATION.domain}`, service.process.url);
        const get = await fetch(url);
        await get.arrayBuffer();
        const challenge = decodePaymentRequiredHeader(get.headers.get('payment-required') ?? '');
        const payer = await lab().settlement.newPayer(FUNDS);
        const signature = encodePaymentSignatureHeader(
          await clientFor(payer).createPaymentPayload(challenge),
        );
        const before = upstreamRequests();

        const head = await fetch(url, { method: 'HEAD' });
        expect.soft(head.status, 'unpaid HEAD').toBe(402);
        const headChallenge = head.headers.get('payment-required');
        expect
          .soft(headChallenge && decodePaymentRequiredHeader(headChallenge).accepts)
          .toEqual(challenge.accepts);
        const paidHead = await fetch(url, { method: 'HEAD', headers: { 'payment-signature': signature } });
        expect.soft(paidHead.status, 'HEAD with a payment').toBe(402);
        await quiet({ settlement: lab().settlement, service }, 200);
        expect.soft(upstreamRequests() - before, 'upstream requests').toBe(0);
        expect.soft(FUNDS - (await lab().settlement.chain.balanceOf(payer.address)), 'charged').toBe(0n);
        return { value: undefined, broken: false };
      });
    },
  );

  it.for(
    paidOperations.flatMap((op) => ['POST', 'PUT', 'DELETE', 'PATCH'].map((m) => [m, op.route] as const)),
  )('%s %s answers 405 with Allow, with no upstream request', async ([method, route]) => {
    await lab().withService(async (service) => {
      const before = upstreamRequests();
      const res = await fetch(new URL(`${route}?domain=${OPERATION.domain}`, service.process.url), {
        method,
      });
      await res.arrayBuffer();
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toMatch(/\bGET\b/);
      expect(upstreamRequests()).toBe(before);
      return { value: undefined, broken: false };
    });
  });
});
