/**
 * Buying a watch, whatever the transport: `run` (inside the paid call, after verification) opens
 * the watch of the payment's signature with its first check; `finish` then activates it once the
 * payment settled, or removes a watch this call created when it did not.
 */
import type { Logger } from 'pino';
import type { RunOutcome } from '../checks/outcome.ts';
import type { Watches } from './ports.ts';
import type { WatchRequest } from './request.ts';
import { createdView } from './views.ts';

export interface WatchPurchase {
  run(): Promise<RunOutcome<unknown>>;
  /** After the paid call: `delivered` when the payment settled and the 201 is about to leave. */
  finish(delivered: boolean): Promise<void>;
}

export function watchPurchase(
  { service, secrets }: Watches,
  { domain, days, webhookUrl }: WatchRequest,
  signature: () => string,
  logger: Logger,
): WatchPurchase {
  let opened: { id: string; created: boolean } | null = null;
  return {
    async run() {
      const signed = signature();
      if (signed === '') {
        return {
          type: 'invalid_input',
          reason: { code: 'invalid_payment', message: 'The payment has no signature.' },
        };
      }
      const id = await secrets.watchId(signed);
      const outcome = await service.open({ id, domain: domain.domain, days, webhookUrl });
      if (outcome.kind === 'check_failed') return outcome.outcome;
      opened = { id, created: outcome.created };
      return { type: 'result', result: await createdView(outcome.watch, secrets) };
    },
    async finish(delivered) {
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
