/**
 * Charged if and only if delivered, over HTTP with the official `@x402/fetch` client: the real
 * service process in self-settlement mode behind an RPC fault proxy (see charged-iff-delivered.ts),
 * plus HEAD and the other methods on the paid routes, which must never run a check or charge.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectChargedIffDelivered, type Lab, PAYMENT_CASES, startLab } from './charged-iff-delivered.ts';

let lab: Lab;
beforeAll(async () => {
  lab = await startLab({ services: 3 });
}, 60_000);
afterAll(async () => {
  await lab?.close();
});

describe('HTTP: the payer is charged the price if and only if the result was delivered', () => {
  it.concurrent.for(PAYMENT_CASES)('$name', { timeout: 60_000 }, async (paymentCase, { expect }) => {
    await expectChargedIffDelivered(expect, lab, 'http', paymentCase);
  });
});
