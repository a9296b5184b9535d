/**
 * The fleet keeps its pace: three `npm start` instances sharing one settler key and one Redis lose
 * no paid call to a slow network (every JSON-RPC call 150 ms slower; every Redis round trip 200 ms
 * slower), every payer is charged exactly for what was delivered, and the fleet settles at least
 * about as many paid calls per second as one instance in the same run (`test/world/fleet-pace.ts`).
 * Before settler nonces were allocated without a fleet-wide lease, the fleet answered 17 of 48 calls
 * 503 at 2.3 paid calls/s against one instance's 48 of 48 at 13.3/s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Burst, describeRace, type PaceLab, paceOf, startPaceLab } from '../world/fleet-pace.ts';
import type { SelfSettlingService } from '../world/self-settling-service.ts';
import { warningLines } from '../world/service-process.ts';

/** The fleet's pace against one instance's, with slack for a loaded 2-core machine that runs both, their chain and their clients. */
const PACE_SLACK = 0.8;

let lab: PaceLab;

beforeAll(async () => {
  lab = await startPaceLab();
}, 120_000);
afterAll(async () => {
  await lab?.close();
});

/**
 * Races run at most before the pace is judged over all their bursts: one race's ratio moves with
 * whatever else the shared machine runs at that moment, so a ratio under the slack is measured
 * again rather than taken from 4 bursts. Every burst of every race must lose nothing.
 */
const MAX_RACES = 3;

/** The warning and error lines the instances logged (pino levels 40 and up), for a failure's message. */
function warningsOf(services: readonly SelfSettlingService[]): string {
  return services
    .map((service, index) => {
      const lines = warningLines(service.process.output());
      return `instance ${index}: ${lines.join('\n') || '(no warning)'}`;
    })
    .join('\n');
}

/** The chain's mempool every 2 s while a race runs (`SettlementWorld.describeMempool`), for a failure's message. */
function sampleMempool(): { samples: string[]; stop: () => void } {
  const samples: string[] = [];
  const started = performance.now();
  const timer = setInterval(() => {
    const at = Math.round((performance.now() - started) / 1000);
    const now = performance.now();
    const open = [lab.alone, ...lab.fleet]
      .map((service, index) =>
        service.proxy
          .calls()
          .filter((call) => call.doneAt === undefined && now - call.receivedAt > 2_000)
          .map((call) => `${index}:${call.method} ${Math.round((now - call.receivedAt) / 1000)} s`),
      )
      .flat();
    void lab.settlement.describeMempool().then(
      (line) => samples.push(`+${at} s: ${line}; RPC calls open over 2 s: ${open.join(', ') || 'none'}`),
      (error: unknown) => samples.push(`+${at} s: mempool unread (${String(error)})`),
    );
  }, 2_000);
  return { samples, stop: () => clearInterval(timer) };
}

/** Races (`PaceLab.race`) on `one` against the fleet: nothing lost, charged exactly, at its pace. */
async function race(what: string, one: SelfSettlingService, calls: number) {
  const alone: Burst[] = [];
  const fleet: Burst[] = [];
  for (let run = 0; run < MAX_RACES; run += 1) {
    const mempool = sampleMempool();
    const raced = await lab.race(one, calls).finally(mempool.stop);
    // The measured numbers, for the record of the run.
    process.stdout.write(`${what}\n${describeRace(raced)}\n`);
    for (const burst of [...raced.alone, ...raced.fleet]) {
      expect(burst.refused, `${warningsOf([one, ...lab.fleet])}\n${mempool.samples.join('\n')}`).toEqual({});
      expect(burst.delivered).toBe(burst.calls);
      expect(burst.charged).toBe(burst.owed);
    }
    alone.push(...raced.alone);
    fleet.push(...raced.fleet);
    if (paceOf(fleet) >= PACE_SLACK * paceOf(alone)) break;
  }
  expect(paceOf(fleet)).toBeGreaterThanOrEqual(PACE_SLACK * paceOf(alone));
}

describe('three instances sharing one settler key and one Redis', () => {
  it('lose no paid call with every RPC call 150 ms slower, at least at one instance’s pace', async () => {
    lab.rpcLatency(150);
    try {
      // One instance without Redis, as one runs alone.
      await race('every JSON-RPC call +150 ms, bursts of 48', lab.alone, 48);
    } finally {
      lab.rpcLatency(0);
    }
  }, 240_000);

  it('lose no paid call with every Redis round trip 200 ms slower, at least at one instance’s pace', async () => {
    lab.redis.delayMs = 200;
    try {
      // One of the fleet alone, on the same slow Redis.
      await race('every Redis round trip +200 ms, bursts of 36', lab.fleet[0]!, 36);
    } finally {
      lab.redis.delayMs = 0;
    }
  }, 240_000);
});
