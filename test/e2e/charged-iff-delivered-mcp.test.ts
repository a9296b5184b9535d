/**
 * Charged if and only if delivered, over MCP with the official SDK client and the x402 payment in
 * `_meta`: the same cases as over HTTP (charged-iff-delivered.ts), on the real service process in
 * self-settlement mode behind an RPC fault proxy.
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

describe('MCP: the payer is charged the price if and only if the tool result was delivered', () => {
  it.concurrent.for(PAYMENT_CASES)('$name', { timeout: 60_000 }, async (paymentCase, { expect }) => {
    await expectChargedIffDelivered(expect, lab, 'mcp', paymentCase);
  });
});
