/**
 * The pending sweep's decisions: what the chain says of a pending watch's authorization decides
 * whether it is activated, removed or left for the next sweep; only watches older than any paid
 * call are judged, and a chain that cannot be read decides nothing.
 */
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { PAID_CALL_MAX_MS } from '../../../src/payments/server/identified-answers.ts';
import { EXPIRY_MARGIN_MS } from '../../../src/payments/facilitator/settlement.ts';
import { activate, type PendingPayment, type WatchRecord } from '../../../src/watches/model.ts';
import {
  createPendingSweep,
  pendingVerdict,
  type PendingSweep,
  SWEEP_PENDING_AFTER_MS,
  type SweepReport,
  sweepWhenDue,
} from '../../../src/watches/pending-sweep.ts';
import { STORE_NOW, watchRecord } from '../../world/watch-records.ts';

const PAYER = '0x00000000000000000000000000000000000000a1' as const;
const ASSET = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' as const;
const nonceOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;

function payment(n: number, validBeforeMs: number): PendingPayment {
  return { from: PAYER, nonce: nonceOf(n), validBefore: Math.floor(validBeforeMs / 1000) };
}

/** A store over `pendings`: the pending ones opened by a time, oldest first (inserted in that order). */
const storeOf = (pendings: Map<string, WatchRecord>) => ({
  pendingOpenedBy: async (openedBy: number, limit: number) =>
    [...pendings.values()]
      .filter((watch) => watch.status === 'pending' && watch.createdAt <= openedBy)
      .slice(0, limit),
});

describe('pendingVerdict', () => {
  const paid = payment(1, STORE_NOW + 45_000);
  const expiredAt = paid.validBefore * 1000 + EXPIRY_MARGIN_MS;

  it('activates a watch whose authorization the chain shows used, whenever it is asked', () => {
    expect(pendingVerdict(paid, true, STORE_NOW)).toBe('activate');
    expect(pendingVerdict(paid, true, expiredAt + 86_400_000)).toBe('activate');
    expect(pendingVerdict(undefined, true, STORE_NOW)).toBe('activate');
  });

  it('removes one unused past validBefore and the margin after which no block can include it', () => {
    expect(pendingVerdict(paid, false, expiredAt)).toBe('discard');
    expect(pendingVerdict(paid, false, expiredAt + 1)).toBe('discard');
  });

  it('waits for one unused while it can still be mined', () => {
    expect(pendingVerdict(paid, false, expiredAt - 1)).toBe('wait');
    expect(pendingVerdict(paid, false, STORE_NOW)).toBe('wait');
  });

  it('decides nothing when the chain cannot be read, or the watch names no payment', () => {
    expect(pendingVerdict(paid, undefined, expiredAt + 86_400_000)).toBe('wait');
    expect(pendingVerdict(undefined, false, expiredAt + 86_400_000)).toBe('wait');
  });

  it('waits longer than any paid call before judging a pending watch', () => {
    expect(SWEEP_PENDING_AFTER_MS).toBe(PAID_CALL_MAX_MS);
    // A paid call cut off at its very end has had its settlement proven either way by then.
    expect(SWEEP_PENDING_AFTER_MS).toBeGreaterThan(45_000 + EXPIRY_MARGIN_MS);
  });
});

describe('createPendingSweep', () => {
  /** A store of pending watches and a service that records what the sweep did to them. */
  function world(watches: WatchRecord[], used: (nonce: string) => boolean | Error) {
    const done: string[] = [];
    const asked: { asset: string; from: string; nonce: string }[] = [];
    const pendings = new Map(watches.map((watch) => [watch.id, watch]));
    const sweep = (now: number) =>
      createPendingSweep({
        store: storeOf(pendings),
        service: {
          async activate(id) {
            done.push(`activate ${id}`);
            const watch = pendings.get(id) as WatchRecord;
            pendings.set(id, activate(watch, now, 86_400).watch);
            return pendings.get(id) ?? null;
          },
          async discard(id) {
            done.push(`discard ${id}`);
            pendings.delete(id);
          },
        },
        chain: {
          async authorizationUsed(asset, from, nonce) {
            asked.push({ asset, from, nonce });
            const answer = used(nonce);
            if (answer instanceof Error) throw answer;
            return answer;
          },
        },
        asset: ASSET,
        logger: pino({ level: 'silent' }),
        now: () => now,
      })();
    return { sweep, done, asked, pendings };
  }

  const opened = (id: string, n: number, createdAt = STORE_NOW) =>
    watchRecord(id, { createdAt, payment: payment(n, createdAt + 45_000) });

  it('activates the paid, removes the expired unused, and leaves the unreadable for the next sweep', async () => {
    const { sweep, done, asked } = world(
      [opened('wat_paid', 1), opened('wat_unpaid', 2), opened('wat_unknown', 3)],
      (nonce) => (nonce === nonceOf(1) ? true : nonce === nonceOf(2) ? false : new Error('rpc down')),
    );
    const report = await sweep(STORE_NOW + SWEEP_PENDING_AFTER_MS);
    expect(report).toEqual({
      activated: ['wat_paid'],
      discarded: ['wat_unpaid'],
      waiting: ['wat_unknown'],
      nextDueAt: null,
    });
    expect(done).toEqual(['activate wat_paid', 'discard wat_unpaid']);
    // Asked about the authorization on the record, in the configured asset: never the signature.
    expect(asked).toContainEqual({ asset: ASSET, from: PAYER, nonce: nonceOf(1) });
  });

  it('leaves alone a pending watch younger than any paid call, and asks the chain nothing about it', async () => {
    const { sweep, done, asked } = world([opened('wat_young', 1, STORE_NOW)], () => true);
    const report = await sweep(STORE_NOW + SWEEP_PENDING_AFTER_MS - 1);
    // Reported due when it becomes old enough: the runner wakes then.
    expect(report).toEqual({
      activated: [],
      discarded: [],
      waiting: [],
      nextDueAt: STORE_NOW + SWEEP_PENDING_AFTER_MS,
    });
    expect(done).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('decides a watch once: an activated watch is not judged again', async () => {
    const { sweep, done } = world([opened('wat_paid', 1)], () => true);
    await sweep(STORE_NOW + SWEEP_PENDING_AFTER_MS);
    await sweep(STORE_NOW + SWEEP_PENDING_AFTER_MS + 60_000);
    expect(done).toEqual(['activate wat_paid']);
  });

  it('waits while an unused authorization can still be mined, then removes the watch', async () => {
    const late = watchRecord('wat_late', { payment: payment(4, STORE_NOW + 3_600_000) });
    const { sweep, done } = world([late], () => false);
    expect((await sweep(STORE_NOW + SWEEP_PENDING_AFTER_MS)).waiting).toEqual(['wat_late']);
    expect((await sweep(STORE_NOW + 3_600_000 + EXPIRY_MARGIN_MS)).discarded).toEqual(['wat_late']);
    expect(done).toEqual(['discard wat_late']);
  });

  it('drops the payment from the record once the watch is active', async () => {
    const { sweep, pendings } = world([opened('wat_paid', 1)], () => true);
    await sweep(STORE_NOW + SWEEP_PENDING_AFTER_MS);
    const active = pendings.get('wat_paid');
    expect(active?.status).toBe('active');
    expect(active).not.toHaveProperty('payment');
  });
});

describe('sweepWhenDue', () => {
  const EVERY_MS = 60_000;

  /** A manual clock and timer: `fire` runs the one armed timer, moving the clock to its time. */
  function clock(start = STORE_NOW) {
    let now = start;
    let armed: { run: () => void; at: number; cancelled: boolean } | undefined;
    const delays: number[] = [];
    return {
      now: () => now,
      delays,
      armed: () => (armed && !armed.cancelled ? armed : undefined),
      setTimer(run: () => void, ms: number) {
        delays.push(ms);
        const timer = { run, at: now + ms, cancelled: false };
        armed = timer;
        return () => {
          timer.cancelled = true;
        };
      },
      /** Runs the armed timer and waits for the sweep it starts to re-arm (or stop). */
      async fire() {
        const timer = armed;
        if (!timer || timer.cancelled) throw new Error('no timer armed');
        now = timer.at;
        armed = undefined;
        timer.run();
        await vi.waitFor(() => expect(armed).toBeDefined());
      },
    };
  }

  const reportDue = (nextDueAt: number | null): SweepReport => ({
    activated: [],
    discarded: [],
    waiting: [],
    nextDueAt,
  });

  function runner(sweep: PendingSweep, time = clock()) {
    const logged: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(line) });
    const runs = sweepWhenDue(sweep, { everyMs: EVERY_MS, logger, now: time.now, setTimer: time.setTimer });
    return { runs, time, logged };
  }

  it('sweeps at start, then wakes when the earliest young pending watch becomes old enough', async () => {
    const dueAt = STORE_NOW + 44_000;
    const sweep = vi
      .fn<PendingSweep>()
      .mockResolvedValueOnce(reportDue(dueAt))
      .mockResolvedValue(reportDue(null));
    const { runs, time } = runner(sweep);
    runs.start();
    expect(time.delays).toEqual([0]);
    await time.fire();
    expect(sweep).toHaveBeenCalledTimes(1);
    // 44 s to its due time, not the minute of the fallback.
    expect(time.delays).toEqual([0, 44_000]);
    await time.fire();
    expect(time.now()).toBe(dueAt);
    expect(sweep).toHaveBeenCalledTimes(2);
    // Nothing young left: the periodic fallback.
    expect(time.delays).toEqual([0, 44_000, EVERY_MS]);
    await runs.stop();
  });

  it('sweeps at least every interval, and at once for a watch that became due during the sweep', async () => {
    const sweep = vi
      .fn<PendingSweep>()
      .mockResolvedValueOnce(reportDue(STORE_NOW + 10 * EVERY_MS))
      .mockResolvedValueOnce(reportDue(STORE_NOW - 1))
      .mockResolvedValue(reportDue(null));
    const { runs, time } = runner(sweep);
    runs.start();
    await time.fire();
    expect(time.delays.at(-1)).toBe(EVERY_MS);
    await time.fire();
    expect(time.delays.at(-1)).toBe(0);
    await runs.stop();
  });

  it('logs a failed sweep and sweeps again an interval later', async () => {
    const sweep = vi
      .fn<PendingSweep>()
      .mockRejectedValueOnce(new Error('store down'))
      .mockResolvedValue(reportDue(null));
    const { runs, time, logged } = runner(sweep);
    runs.start();
    await time.fire();
    expect(logged.join('')).toContain('pending watch sweep failed');
    expect(time.delays).toEqual([0, EVERY_MS]);
    await time.fire();
    expect(sweep).toHaveBeenCalledTimes(2);
    await runs.stop();
  });

  it('starts once, and once stopped arms nothing more and waits for the sweep in hand', async () => {
    let finish: (report: SweepReport) => void = () => {};
    const sweep = vi.fn<PendingSweep>(() => new Promise((resolve) => (finish = resolve)));
    const time = clock();
    const { runs } = runner(sweep, time);
    runs.start();
    runs.start();
    expect(time.delays).toEqual([0]);
    time.armed()?.run();
    expect(sweep).toHaveBeenCalledTimes(1);
    let stopped = false;
    const stopping = runs.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    finish(reportDue(STORE_NOW + 1_000));
    await stopping;
    expect(time.delays).toEqual([0]);
  });

  it('stopped before its first sweep, sweeps nothing', async () => {
    const sweep = vi.fn<PendingSweep>();
    const { runs, time } = runner(sweep);
    runs.start();
    await runs.stop();
    expect(time.armed()).toBeUndefined();
    expect(sweep).not.toHaveBeenCalled();
  });

  it('activates a paid watch left pending by a cut-off call when it becomes old enough, not a minute later', async () => {
    const paid = watchRecord('wat_cut', { createdAt: STORE_NOW, payment: payment(7, STORE_NOW + 45_000) });
    const pendings = new Map([[paid.id, paid]]);
    const activatedAt: number[] = [];
    // The instance restarts 5 s after the call was cut off.
    const time = clock(STORE_NOW + 5_000);
    const sweep = createPendingSweep({
      store: storeOf(pendings),
      service: {
        async activate(id) {
          activatedAt.push(time.now());
          const watch = activate(pendings.get(id) as WatchRecord, time.now(), 86_400).watch;
          pendings.set(id, watch);
          return watch;
        },
        async discard() {},
      },
      chain: { authorizationUsed: async () => true },
      asset: ASSET,
      logger: pino({ level: 'silent' }),
      now: time.now,
    });
    const { runs } = runner(sweep, time);
    runs.start();
    await time.fire();
    // Due in 99 s: the fallback minute comes first, then the rest of the way to the due time.
    await time.fire();
    expect(activatedAt).toEqual([]);
    await time.fire();
    expect(activatedAt).toEqual([STORE_NOW + SWEEP_PENDING_AFTER_MS]);
    expect(time.delays).toEqual([0, EVERY_MS, SWEEP_PENDING_AFTER_MS - 5_000 - EVERY_MS, EVERY_MS]);
    await runs.stop();
  });
});
