/**
 * Buying a watch, whatever the transport, as the work of a paid call: `run` (after verification)
 * opens the watch of the payment's signature with its first check, recording the authorization on
 * it; `afterSettlement` then activates it once the payment settled, or removes a watch this call
 * created when it did not. A process that dies in between leaves the watch pending: the same request
 * and signature finish it, or else the pending sweep does from the chain (`pending-sweep.ts`).
 */
import type { Logger } from 'pino';
import type { RunOutcome } from '../checks/outcome.ts';
import type { ExactAuthorization } from '../payments/exact-authorization.ts';
import type { Watches } from './ports.ts';
import type { WatchRequest } from './request.ts';
import { createdView } from './views.ts';

export interface WatchPurchase {
  run: (paying: ExactAuthorization) => Promise<RunOutcome<unknown>>;
  /** The paid call's step once the payment is decided: `delivered` when it settled and the 201 leaves. */
  afterSettlement: (delivered: boolean) => Promise<void>;
}

export function watchPurchase(
  { service, secrets }: Watches,
  { domain, days, webhookUrl }: WatchRequest,
  logger: Logger,
): WatchPurchase {
  let opened: { id: string; created: boolean } | null = null;
  return {
    async run({ signature, from, nonce, validBefore }) {
      const id = await secrets.watchId(signature);
      const outcome = await service.open({
        id,
        domain: domain.domain,
        days,
        webhookUrl,
        payment: { from, nonce, validBefore: Number(validBefore) },
      });
      if (outcome.kind === 'check_failed') return outcome.outcome;
      opened = { id, created: outcome.created };
      return { type: 'result', result: await createdView(outcome.watch, secrets) };
    },
    async afterSettlement(delivered) {
      const watch = opened as { id: string; created: boolean } | null;
      if (!watch) return;
      if (delivered) {
        await service.activate(watch.id).catch((error: unknown) => {
          logger.error({ err: error, watch: watch.id }, 'a paid watch could not be activated');
        });
      } else if (watch.created) {
        await service.discard(watch.id).catch((error: unknown) => {
          logger.error({ err: error, watch: watch.id }, 'an unpaid watch could not be removed');
        });
      }
    },
  };
}
