/**
 * Charged if and only if delivered, on the Worker: the same cases as on Node (charged-iff-delivered.ts)
 * over HTTP and MCP (both eras) against the Worker in local workerd, settling through its settler object behind
 * the RPC fault proxy. Local workerd never tells a Worker that its client went away (`request.signal`
 * does not abort there), so the Worker runs from the test-only entry `test/world/edge-client-gone-worker.ts`,
 * which aborts a request's signal when the test reports its client gone, as Cloudflare does when
 * the client disconnects; the client-abort cases run here as on Node.
 *
 * Then, step by step, what a client that leaves gets on the Worker: leaving during the check, it is
 * not charged; leaving once the settlement was sent, it is charged, and the same request with the
 * same signature gets the result exactly once (a third attempt is a 402).
 */
import { describe, it } from 'vitest';
import type { Transport } from '../world/paying-clients.ts';
import {
  type CaseContext,
  checkRunning,
  describeChargedIffDeliveredOver,
  FUNDS,
  OPERATION,
  PRICE,
  paidCall,
  QUIET_AFTER_ABORT_MS,
  quiet,
} from './charged-iff-delivered.ts';

const TRANSPORTS = ['http', 'mcp', 'mcp-2026'] as const satisfies readonly Transport[];

// The transports side by side, each on its own settlement world and pool of Worker processes.
const labs = describeChargedIffDeliveredOver(
  TRANSPORTS,
  'Worker, over HTTP, MCP and MCP 2026-07-28: the payer is charged the price if and only if the result was delivered',
  { runtime: 'edge' },
);

/** Whether `text` appears in the service's output after `from` within `withinMs`. */
async function logged(
  service: { process: { output(): string } },
  from: number,
  text: string,
  withinMs = 20_000,
): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  while (!service.process.output().slice(from).includes(text)) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** Slow enough for the client to leave while the check runs. */
const SLOW_CHECK_MS = 1_500;

// Each transport on its own lab, so the transports run side by side; the two steps one after the other.
describe('Worker: a client that leaves during the check', () => {
  it.concurrent.for(TRANSPORTS)(
    '%s: nothing settled, the balance unchanged on chain',
    { timeout: 60_000 },
    async (transport, { expect }) => {
      const lab = labs[transport]();
      // A new isolate: its caches are cold, so the check asks crt.sh (which is slowed).
      await lab.withService(
        async (service) => {
          const at: CaseContext = { settlement: lab.settlement, service };
          const { world, chain } = at.settlement;
          world.crtsh.delayMs = SLOW_CHECK_MS;
          const logFrom = service.process.output().length;
          try {
            const { payer, call, left } = await paidCall(at, transport, OPERATION.domain, checkRunning);
            expect(call.answer.aborted).toBe(true);
            expect(await left, 'the Worker saw the client leave').toBe(true);
            // The check runs on past the client: the CT search, then (cold isolate, no served leaf)
            // the certificate download for ARI's CertID, each slowed. Its end is the log line.
            const gone = await logged(service, logFrom, 'client gone before settlement');
            expect(gone, 'the Worker logged the client gone before settlement').toBe(true);
            await quiet(at, QUIET_AFTER_ABORT_MS);
            expect(await chain.balanceOf(payer.address)).toBe(FUNDS);
          } finally {
            world.crtsh.delayMs = 0;
          }
          return { value: undefined, broken: false };
        },
        { fresh: true },
      );
    },
  );
});

describe('Worker: a client that leaves after the settlement was sent', () => {
  it.concurrent.for(TRANSPORTS)(
    '%s: charged, the result claimable once with the same signature, then 402',
    { timeout: 60_000 },
    async (transport, { expect }) => {
      const lab = labs[transport]();
      await lab.withService(async (service) => {
        const at: CaseContext = { settlement: lab.settlement, service };
        const { proxy } = service;
        proxy.reset();
        proxy.rule('eth_sendRawTransaction', { holdResponse: 'until-released' });
        const logFrom = service.process.output().length;
        const { payer, call, left } = await paidCall(at, transport, OPERATION.domain, () =>
          proxy.until('eth_sendRawTransaction', (sent) => sent.forwarded),
        );
        expect(call.answer.aborted).toBe(true);
        expect(await left, 'the Worker saw the client leave').toBe(true);
        proxy.reset();
        await quiet(at, QUIET_AFTER_ABORT_MS);
        const balance = () => at.settlement.chain.balanceOf(payer.address);
        expect(await balance()).toBe(FUNDS - PRICE);
        expect(service.process.output().slice(logFrom)).toContain('paid result not delivered');

        const claimed = await call.retry();
        expect(claimed.delivered).toBe(true);
        expect(service.process.output().slice(logFrom)).toContain('paid result redelivered');
        const again = await call.retry();
        expect(again.delivered).toBe(false);
        if (transport === 'http') expect(again.status).toBe(402);
        expect(again.code).toMatch(/^payment_required:/);
        await quiet(at, QUIET_AFTER_ABORT_MS);
        expect(await balance()).toBe(FUNDS - PRICE);
        return { value: undefined, broken: false };
      });
    },
  );
});
