/**
 * The fleet keeps its pace: three `npm start` instances sharing one settler key and one Redis lose
 * no paid call to a slow network (every JSON-RPC call 150 ms slower; every Redis round trip 200 ms
 * slower), every payer is charged exactly for what was delivered, and the fleet settles at least
 * about as many paid calls per second as one instance in the same run (`test/world/fleet-pace.ts`).
 * Before settler nonces were allocated without a fleet-wide lease, the fleet answered 17 of 48 calls
 * 503 at 2.3 paid calls/s against one instance's 48 of 48 at 13.3/s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Burst, type PaceLab, startPaceLab } from '../world/fleet-pace.ts';
import type { SelfSettlingService } from '../world/self-settling-service.ts';

/**
 * The fleet's pace against one instance's, with slack for a loaded 2-core machine that runs both,
 * their chain and their clients: one instance, the fleet, the fleet again, one instance again, so
 * that a load changing during the run weighs on both alike.
 */
const PACE_SLACK = 0.8;

let lab: PaceLab;

beforeAll(async () => {
  lab = await startPaceLab();
}, 120_000);
afterAll(async () => {
  await lab?.close();
});

/** Bursts of `calls` on one instance and on the fleet, in the order A B B A; each must lose nothing. */
async function race(what: string, one: SelfSettlingService, calls: number) {
  const alone = [await lab.burst([one], calls)];
  const fleet = [await lab.burst(lab.fleet, calls), await lab.burst(lab.fleet, calls)];
  alone.push(await lab.burst([one], calls));
  const line = (who: string, bursts: Burst[]) =>
    `${who}: ${bursts.map((b) => `${b.delivered}/${b.calls} in ${b.seconds} s (${b.perSecond}/s) ${JSON.stringify(b.refused)}`).join(', ')}`;
  // The measured numbers, for the record of the run.
  process.stdout.write(`${what}\n  ${line('one instance', alone)}\n  ${line('three instances', fleet)}\n`);
  for (const burst of [...alone, ...fleet]) {
    expect(burst.refused).toEqual({});
    expect(burst.delivered).toBe(burst.calls);
    expect(burst.charged).toBe(burst.owed);
  }
  const pace = (bursts: Burst[]) =>
    bursts.reduce((sum, b) => sum + b.delivered, 0) / bursts.reduce((sum, b) => sum + b.seconds, 0);
  expect(pace(fleet)).toBeGreaterThanOrEqual(PACE_SLACK * pace(alone));
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
  }, 90_000);

  it('lose no paid call with every Redis round trip 200 ms slower, at least at one instance’s pace', async () => {
    lab.redis.delayMs = 200;
    try {
      // One of the fleet alone, on the same slow Redis.
      await race('every Redis round trip +200 ms, bursts of 36', lab.fleet[0]!, 36);
    } finally {
      lab.redis.delayMs = 0;
    }
  }, 90_000);
});
