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
/** How often a Node instance sweeps. */
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
    const report: SweepReport = { activated: [], discarded: [], waiting: [] };
    const stale = await store.pendingOpenedBy(now() - SWEEP_PENDING_AFTER_MS, SWEEP_BATCH);
    for (const watch of stale) {
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

/** Runs `sweep` every `everyMs` until stopped; a failed sweep is logged and the next one runs. */
export function sweepEvery(sweep: PendingSweep, everyMs: number, logger: Logger) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = true;
  const next = () => {
    timer = setTimeout(() => {
      running = sweep()
        .catch((error: unknown) => logger.error({ err: error }, 'pending watch sweep failed'))
        .finally(() => {
          if (!stopped) next();
        });
    }, everyMs);
    timer.unref?.();
  };
  return {
    start() {
      if (!stopped) return;
      stopped = false;
      next();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
