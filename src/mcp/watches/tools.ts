/**
 * The watch tools of the MCP server, declared from the catalog's watch operations: `watch_domain`
 * and `watch_extend` (paid over `_meta["x402/payment"]` like the checks), `watch_status` and
 * `watch_cancel` (free); all but `watch_domain` take the watch's `token` as an argument or the
 * paying wallet's sign-in in `_meta["x402/sign-in-with-x"]` (`wallet-tools.ts`). Each entry is its
 * schemas and a small handler.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import { paidOutcomeResult, readToolPayment } from '../paid-tool.ts';
import { problemResult, refusedResult, successResult } from '../tool-result.ts';
import { PAYMENT_UNAVAILABLE } from '../../payments/server/payment-problem.ts';
import type { Payments } from '../../payments/payments.ts';
import { createWatchAccess } from '../../watches/access.ts';
import { extensionRun, extensionSubject, NOT_ACTIVE } from '../../watches/extension.ts';
import { eventSeqOf } from '../../watches/model.ts';
import { watchTermsFor } from '../../watches/payment-terms.ts';
import { watchPurchase } from '../../watches/purchase.ts';
import {
  extensionReader,
  watchInputBoundsOf,
  watchRequestReader,
  watchSubject,
} from '../../watches/request.ts';
import type { Watches } from '../../watches/ports.ts';
import { watchCreatedSchema, watchInputShape, watchStatusSchema } from '../../watches/schemas.ts';
import { readByHandler, toolConfig, type WatchTool } from './tool-config.ts';
import { statusView } from '../../watches/views.ts';
import { managedBy, manageShape, walletTools } from './wallet-tools.ts';

export type { WatchTool } from './tool-config.ts';

const createConfig = toolConfig('v1_watch_create', watchInputShape, watchCreatedSchema, readByHandler);
const statusConfig = toolConfig(
  'v1_watch_status',
  {
    ...manageShape,
    since: z.string().max(64).optional().describe('An event id: list only the events after it.'),
  },
  watchStatusSchema,
);
const cancelConfig = toolConfig('v1_watch_cancel', manageShape, watchStatusSchema);
const extendConfig = toolConfig(
  'v1_watch_extend',
  { ...manageShape, days: watchInputShape.days.unwrap() },
  watchStatusSchema,
  readByHandler,
);

// eslint-disable-next-line max-lines-per-function -- a table of the four watch tools over one set of closure state (terms, access, the input readers); a module-level call per tool would take that state as five parameters each and scatter the table
export function watchTools(deps: {
  config: Config;
  watches: Watches;
  payments: Payments;
  logger: Logger;
}): WatchTool[] {
  const { config, watches, payments, logger } = deps;
  const { service } = watches;
  const terms = watchTermsFor(payments.resourceServer, config, 'mcp');
  const access = createWatchAccess(config, watches, payments.chain);
  const managed = managedBy(config, access);
  const readRequest = watchRequestReader(watchInputBoundsOf(config));
  const readExtension = extensionReader(watchInputBoundsOf(config));

  return [
    {
      ...createConfig,
      async call(args, meta, signal) {
        const checked = readRequest(args);
        if (!checked.ok) return refusedResult({ type: 'invalid_input', reason: checked.reason });
        const { webhookUrl } = checked.request;
        const unreachable = webhookUrl === null ? null : await watches.reach(webhookUrl);
        if (unreachable) return refusedResult(unreachable);
        if (!(await payments.facilitatorReady())) return problemResult(PAYMENT_UNAVAILABLE);
        const purchase = watchPurchase(watches, checked.request, logger);
        const outcome = await payments.paidCall({
          terms: await terms.purchase(checked.request),
          payment: readToolPayment(meta),
          run: purchase.run,
          afterSettlement: purchase.afterSettlement,
          keptResult: true,
          signal,
          name: 'watch_domain',
          subject: watchSubject(checked.request),
        });
        return paidOutcomeResult(outcome);
      },
    },
    {
      ...statusConfig,
      async call(args, meta) {
        const granted = await managed(args, meta);
        if ('denied' in granted) return granted.denied;
        const { watch } = granted;
        const since =
          typeof args.since === 'string' && args.since !== '' ? eventSeqOf(watch.id, args.since) : 0;
        if (since === null) {
          return refusedResult({
            type: 'invalid_input',
            reason: {
              code: 'invalid_since',
              message: "`since` must be the id of one of this watch's events.",
            },
          });
        }
        const { events, attempts } = await service.history(watch.id, since);
        return successResult(statusView(watch, events, attempts));
      },
    },
    {
      ...cancelConfig,
      async call(args, meta) {
        const granted = await managed(args, meta);
        if ('denied' in granted) return granted.denied;
        const { watch } = granted;
        const after = (await service.cancel(watch.id)) ?? watch;
        const { events, attempts } = await service.history(watch.id, 0);
        return successResult(statusView(after, events, attempts));
      },
    },
    {
      ...extendConfig,
      async call(args, meta, signal) {
        // A sign-in is spent by the paid work, for its payment (`Credentials.proofUse`).
        const payment = readToolPayment(meta);
        const granted = await managed(args, meta, payment.kind === 'absent' ? 'ask' : 'pay');
        if ('denied' in granted) return granted.denied;
        const { watch, spendProof } = granted;
        const checked = readExtension({ days: args.days });
        if (!checked.ok) return refusedResult({ type: 'invalid_input', reason: checked.reason });
        if (watch.status !== 'active') return problemResult(NOT_ACTIVE);
        if (!(await payments.facilitatorReady())) return problemResult(PAYMENT_UNAVAILABLE);
        const { days } = checked;
        const outcome = await payments.paidCall({
          terms: await terms.extension(watch.id, days),
          payment,
          run: extensionRun(service, watch.id, days, spendProof),
          keptResult: true,
          signal,
          name: 'watch_extend',
          subject: extensionSubject(watch.id, days),
        });
        return paidOutcomeResult(outcome);
      },
    },
    ...walletTools(config, watches, access, managed),
  ];
}
