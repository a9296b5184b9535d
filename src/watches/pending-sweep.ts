/**
 * A paid watch is never left pending. The paid call opens a watch `pending` and activates it once
 * settled (or removes it); a process killed in between — after its settlement transaction, before
 * the activation — leaves it pending. The same request with the same signature finishes it (the
 * paid call's redelivery); without one, this sweep does, from what the chain says of the
 * authorization recorded on the watch, once the watch is older than any paid call can last:
 * - used: the payer paid, so the watch is activated (`watch.created` goes to its webhook, and the
 *   payer's receiver learns of the watch though the 201 was lost);
 * - unused past its `validBefore`: it can never be paid, so the watch is removed;
 * - unused within its window, or the chain unreadable: asked again at the next sweep.
 * Several instances may sweep one store: activation is one transition (committed once, its
 * events raised once) and removal takes only a watch still pending.
 */
import type { Logger } from 'pino';
import type { ChainView } from '../payments/chain/chain-view.ts';
import { PAID_CALL_MAX_MS } from '../payments/server/identified-answers.ts';
import { EXPIRY_MARGIN_MS } from '../payments/facilitator/settlement.ts';
import type { PendingPayment, WatchRecord } from './model.ts';
import type { WatchService, WatchStore } from './ports.ts';

/** A pending watch is swept once it is older than any paid call can last. */
export const SWEEP_PENDING_AFTER_MS = PAID_CALL_MAX_MS;
/**
 * The longest a Node instance goes without sweeping: a watch opened by another instance, or whose
 * chain read failed, is judged at most this late.
 */
export const SWEEP_EVERY_MS = 60_000;
/** Pending watches judged per sweep. */
const SWEEP_BATCH = 100;

export type PendingVerdict = 'activate' | 'discard' | 'wait';

/**
 * What becomes of a pending watch paid by `payment`, given whether the chain shows its
 * authorization used (`undefined`: the chain could not be read) at `now` (epoch ms).
 */
export function pendingVerdict(
  payment: PendingPayment | undefined,
  used: boolean | undefined,
  now: number,
): PendingVerdict {
  if (used === true) return 'activate';
  // Past validBefore by the margin, no block can include the authorization any more.
  if (used === false && payment && now >= payment.validBefore * 1000 + EXPIRY_MARGIN_MS) return 'discard';
  return 'wait';
}

export interface PendingSweepDeps {
  store: Pick<WatchStore, 'pendingOpenedBy'>;
  service: Pick<WatchService, 'activate' | 'discard'>;
  chain: Pick<ChainView, 'authorizationUsed'>;
  /** The token payments are made in (`X402_ASSET`). */
  asset: `0x${string}`;
  logger: Logger;
  now?: () => number;
}

export interface SweepReport {
  activated: string[];
  discarded: string[];
  waiting: string[];
  /** When the earliest pending watch too young to judge becomes old enough (epoch ms); null if none. */
  nextDueAt: number | null;
}

/** One sweep of the pending watches older than any paid call. */
export type PendingSweep = () => Promise<SweepReport>;

export function createPendingSweep(deps: PendingSweepDeps): PendingSweep {
  const { store, service, chain, asset, logger } = deps;
  const now = deps.now ?? Date.now;

  async function used(watch: WatchRecord): Promise<boolean | undefined> {
    if (!watch.payment) return undefined;
    const { from, nonce } = watch.payment;
    return chain.authorizationUsed(asset, from, nonce).catch(() => undefined);
  }

  return async function sweep() {
    const report: SweepReport = { activated: [], discarded: [], waiting: [], nextDueAt: null };
    const at = now();
    // Oldest first: the stale ones, then the young ones, whose paid calls may still finish them.
    const pending = await store.pendingOpenedBy(at, SWEEP_BATCH);
    for (const watch of pending) {
      if (watch.createdAt > at - SWEEP_PENDING_AFTER_MS) {
        const dueAt = watch.createdAt + SWEEP_PENDING_AFTER_MS;
        report.nextDueAt = Math.min(report.nextDueAt ?? dueAt, dueAt);
        continue;
      }
      const verdict = pendingVerdict(watch.payment, await used(watch), now());
      if (verdict === 'activate') {
        await service.activate(watch.id);
        report.activated.push(watch.id);
        logger.warn(
          { watch: watch.id, payer: watch.payment?.from },
          'a paid watch left pending by its paid call was activated from the chain',
        );
      } else if (verdict === 'discard') {
        await service.discard(watch.id);
        report.discarded.push(watch.id);
        logger.info({ watch: watch.id }, 'a pending watch whose payment expired unused was removed');
      } else report.waiting.push(watch.id);
    }
    return report;
  };
}

/** Calls `run` in `ms`; the returned function cancels it. */
export type SetTimer = (run: () => void, ms: number) => () => void;

const unrefTimer: SetTimer = (run, ms) => {
  const timer = setTimeout(run, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
};

export interface SweepTiming {
  /** The longest gap between sweeps (`SWEEP_EVERY_MS`). */
  everyMs: number;
  logger: Logger;
  now?: () => number;
  setTimer?: SetTimer;
}

/**
 * Runs `sweep` at start, then when the earliest pending watch it saw becomes old enough to judge,
 * and at least every `everyMs` (watches opened by other instances, authorizations still unused, a
 * chain that could not be read). A failed sweep is logged and the next one runs `everyMs` later.
 */
export function sweepWhenDue(sweep: PendingSweep, timing: SweepTiming) {
  const { everyMs, logger, now = Date.now, setTimer = unrefTimer } = timing;
  let cancel = () => {};
  let running: Promise<unknown> = Promise.resolve();
  let stopped = true;
  const next = (ms: number) => {
    cancel = setTimer(() => {
      running = sweep()
        .then(({ nextDueAt }) => (nextDueAt === null ? everyMs : Math.max(0, nextDueAt - now())))
        .catch((error: unknown) => {
          logger.error({ err: error }, 'pending watch sweep failed');
          return everyMs;
        })
        .then((wait) => {
          if (!stopped) next(Math.min(wait, everyMs));
        });
    }, ms);
  };
  return {
    start() {
      if (!stopped) return;
      stopped = false;
      next(0);
    },
    async stop() {
      stopped = true;
      cancel();
      await running;
    },
  };
}
