/**
 * Charged if and only if delivered with blocks every 2 s (anvil --block-time 2, as on Base): the
 * normal paid path, and SIGTERM to the real process while a paid call is in flight (during the check,
 * and while its settlement waits for the block). The process must exit 0 and the in-flight call must
 * keep the invariant. Each SIGTERM case gets a process of its own.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { payFor, type Transport } from '../world/paying-clients.ts';
import {
  type CaseContext,
  checkRunning,
  expectChargedIffDelivered,
  FUNDS,
  type Lab,
  leaksIn,
  OPERATION,
  PRICE,
  quiet,
  startLab,
} from './charged-iff-delivered.ts';

let lab: Lab;
beforeAll(async () => {
  lab = await startLab({ blockTimeSeconds: 2 });
}, 120_000);
afterAll(async () => {
  await lab?.close();
});

describe('blocks every 2 s: the normal paid path settles and delivers', () => {
  it.concurrent.for(['http', 'mcp'] as const)('%s', { timeout: 60_000 }, async (transport, { expect }) => {
    await expectChargedIffDelivered(expect, lab, transport, {
      name: 'no fault, 2 s blocks',
      mustDeliver: true,
    });
  });
});

interface ShutdownCase {
  transport: Transport;
  stage: string;
  /** Resolves once the paid call has reached the stage. */
  reached: (at: CaseContext) => Promise<unknown>;
  slowCheckMs?: number;
  domain?: string;
}

const afterBroadcast = ({ service }: CaseContext) =>
  service.proxy.until('eth_sendRawTransaction', (call) => call.answered !== undefined);

const SHUTDOWN_CASES: readonly ShutdownCase[] = [
  {
    transport: 'http',
    stage: 'during the check',
    reached: checkRunning,
    slowCheckMs: 1_500,
    domain: 'renewal-due.net',
  },
  { transport: 'http', stage: 'while the settlement waits for its block', reached: afterBroadcast },
  { transport: 'mcp', stage: 'while the settlement waits for its block', reached: afterBroadcast },
];

describe('SIGTERM with a paid call in flight: exit 0, charged iff delivered', () => {
  it.concurrent.for(SHUTDOWN_CASES)(
    '$transport $stage',
    { timeout: 60_000 },
    async (shutdownCase, { expect }) => {
      const seen = await lab.withService(
        async (service) => {
          const at: CaseContext = { settlement: lab.settlement, service };
          const payer = await lab.settlement.newPayer(FUNDS);
          if (shutdownCase.slowCheckMs) lab.settlement.world.crtsh.delayMs = shutdownCase.slowCheckMs;
          let finished = false;
          const paying = payFor({
            transport: shutdownCase.transport,
            baseUrl: service.process.url,
            ...OPERATION,
            domain: shutdownCase.domain ?? OPERATION.domain,
            payer,
          }).finally(() => (finished = true));
          await shutdownCase.reached(at);
          const inFlight = !finished;
          service.process.signal('SIGTERM');
          const [call, exitCode] = await Promise.all([paying, service.process.exited]);
          if (shutdownCase.slowCheckMs) lab.settlement.world.crtsh.delayMs = 0;
          await quiet(at, 200);
          const delta = FUNDS - (await lab.settlement.chain.balanceOf(payer.address));
          const leaks = leaksIn(`${call.answer.seen}\n${service.process.output()}`, service.secrets);
          const { seen: _seen, ...answer } = call.answer;
          return { value: { inFlight, exitCode, answer, delta, leaks }, broken: false };
        },
        { fresh: true },
      );
      const label = `${shutdownCase.transport} SIGTERM ${shutdownCase.stage} | ${JSON.stringify(seen, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`;
      expect.soft(seen.inFlight, `${label}\n→ the call had finished before SIGTERM`).toBe(true);
      expect.soft(seen.exitCode, `${label}\n→ exit code`).toBe(0);
      expect.soft([0n, PRICE], `${label}\n→ charged neither 0 nor the price`).toContain(seen.delta);
      expect.soft(seen.delta === PRICE, `${label}\n→ charged ⇔ delivered`).toBe(seen.answer.delivered);
      expect.soft(seen.leaks, `${label}\n→ leaked`).toEqual([]);
    },
  );
});
