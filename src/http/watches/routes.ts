/**
 * The watch routes: `POST /v1/watches` (paid, exact x402, the price pro rata of `days`; the body
 * is validated before any payment logic), `GET` and `DELETE /v1/watches/{watch_id}` (free, with
 * the watch's bearer token or the paying wallet's sign-in, `account-routes.ts`; a wrong token, an
 * unknown id and another wallet's watch are the same 404).
 */
import { type Context, Hono } from 'hono';
import type { Logger } from 'pino';
import { WATCHES_ROUTE } from '../../catalog.ts';
import type { Config } from '../../config.ts';
import type { RequestLogVariables } from '../hygiene/request-log.ts';
import { replyJson } from '../hygiene/standard-headers.ts';
import { outcomeProblem } from '../../vocabulary/outcome-problem.ts';
import { sendProblem } from '../send-problem.ts';
import type { PaymentGate } from '../payment-gate.ts';
import type { Payments } from '../../payments/payments.ts';
import { createWatchAccess } from '../../watches/access.ts';
import { accountRoutes, guard } from './account-routes.ts';
import { eventSeqOf } from '../../watches/model.ts';
import { extensionRun, extensionSubject, NOT_ACTIVE } from '../../watches/extension.ts';
import { watchTermsFor } from '../../watches/payment-terms.ts';
import type { Watches } from '../../watches/ports.ts';
import { extensionCost, watchCost, watchPriceUsd } from '../../watches/pricing.ts';
import {
  EXTEND_ROUTE,
  extensionReader,
  WATCH_INPUT_CODES,
  watchInputBoundsOf,
  watchRequestReader,
  watchSubject,
} from '../../watches/request.ts';
import { watchPurchase } from '../../watches/purchase.ts';
import { statusView } from '../../watches/views.ts';

export interface WatchRoutesDeps {
  config: Config;
  watches: Watches;
  payments: Payments;
  gate: PaymentGate;
  logger: Logger;
}

function invalid(c: Context<WatchEnv>, code: string, detail: string) {
  const title = code === WATCH_INPUT_CODES.invalidWebhookUrl ? 'Invalid webhook URL' : 'Invalid request';
  return sendProblem(c, { status: 400, code, title, detail });
}

type WatchEnv = { Variables: RequestLogVariables };

/** The request's body parsed as JSON; undefined when it is not JSON. */
async function jsonBody(c: Context<WatchEnv>): Promise<{ value: unknown } | undefined> {
  try {
    return { value: JSON.parse(await c.req.text()) };
  } catch {
    return undefined;
  }
}

export function watchRoutes({ config, watches, payments, gate, logger }: WatchRoutesDeps): Hono<WatchEnv> {
  const { service } = watches;
  const app = new Hono<WatchEnv>();
  const terms = watchTermsFor(payments.resourceServer, config, 'http');
  const access = createWatchAccess(config, watches, payments.chain);
  const readRequest = watchRequestReader(watchInputBoundsOf(config));
  const readExtension = extensionReader(watchInputBoundsOf(config));

  app.post(WATCHES_ROUTE, async function buyWatch(c) {
    const body = await jsonBody(c);
    if (!body)
      return invalid(c, WATCH_INPUT_CODES.invalidBody, 'The body must be JSON: { "domain": "example.com" }.');
    const checked = readRequest(body.value);
    if (!checked.ok) return invalid(c, checked.reason.code, checked.reason.message);
    const { days, webhookUrl } = checked.request;
    const unreachable = webhookUrl === null ? null : await watches.reach(webhookUrl);
    if (unreachable) return sendProblem(c, outcomeProblem(unreachable));

    const purchase = watchPurchase(watches, checked.request, logger);
    const pay = gate.paidWith({
      name: WATCHES_ROUTE,
      priceUsd: watchPriceUsd(config.watches.pricePer30DaysUsd, days),
      cost: watchCost(config.watches.pricePer30DaysUsd, days),
      terms: () => terms.purchase(checked.request),
      status: 201,
      keptResult: true,
    });
    return pay(c, purchase.run, watchSubject(checked.request), purchase.afterSettlement);
  });

  app.post('/v1/watches/:watch_id/extend', async function extendWatch(c) {
    // A sign-in is spent by the paid work, for its payment (`Credentials.proofUse`).
    const guarded = await guard(c, access, c.req.header('payment-signature') === undefined ? 'ask' : 'pay');
    if ('response' in guarded) return guarded.response;
    const { watch, spendProof } = guarded;
    const body = await jsonBody(c);
    if (!body) return invalid(c, WATCH_INPUT_CODES.invalidBody, 'The body must be JSON: { "days": 30 }.');
    const checked = readExtension(body.value);
    if (!checked.ok) return invalid(c, checked.reason.code, checked.reason.message);
    if (watch.status !== 'active') return sendProblem(c, NOT_ACTIVE);
    const { days } = checked;
    const pay = gate.paidWith({
      name: EXTEND_ROUTE,
      priceUsd: watchPriceUsd(config.watches.pricePer30DaysUsd, days),
      cost: extensionCost(config.watches.pricePer30DaysUsd, days),
      terms: () => terms.extension(watch.id, days),
      keptResult: true,
    });
    return pay(c, extensionRun(service, watch.id, days, spendProof), extensionSubject(watch.id, days));
  });

  app.get('/v1/watches/:watch_id', async function watchStatus(c) {
    const guarded = await guard(c, access);
    if ('response' in guarded) return guarded.response;
    const { watch } = guarded;
    const since = c.req.query('since');
    // Empty: no event seen yet, so from the start (the README's pull loop sends `?since=` so).
    const afterSeq = since === undefined || since === '' ? 0 : eventSeqOf(watch.id, since);
    if (afterSeq === null) {
      return invalid(c, 'invalid_since', "`since` must be the id of one of this watch's events.");
    }
    const { events, attempts } = await service.history(watch.id, afterSeq);
    return replyJson(c, statusView(watch, events, attempts), 200, { 'cache-control': 'private, no-store' });
  });

  app.delete('/v1/watches/:watch_id', async function watchCancel(c) {
    const guarded = await guard(c, access);
    if ('response' in guarded) return guarded.response;
    const { watch } = guarded;
    const after = (await service.cancel(watch.id)) ?? watch;
    const { events, attempts } = await service.history(watch.id, 0);
    return replyJson(c, statusView(after, events, attempts), 200, { 'cache-control': 'private, no-store' });
  });

  app.route('/', accountRoutes(watches, access));
  return app;
}
