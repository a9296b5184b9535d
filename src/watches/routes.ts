/**
 * The watch routes: `POST /v1/watches` (paid, exact x402, the price pro rata of `days`; the body
 * is validated before any payment logic), `GET` and `DELETE /v1/watches/{watch_id}` (free, with
 * the watch's bearer token or the paying wallet's sign-in, `account-routes.ts`; a wrong token, an
 * unknown id and another wallet's watch are the same 404).
 */
import { type Context, Hono } from 'hono';
import type { Logger } from 'pino';
import { WATCHES_ROUTE } from '../catalog.ts';
import type { Config } from '../config.ts';
import type { RequestLogVariables } from '../http/hygiene/request-log.ts';
import { replyJson } from '../http/hygiene/standard-headers.ts';
import { sendProblem } from '../http/send-problem.ts';
import type { PaymentGate } from '../http/payment-gate.ts';
import type { Payments } from '../payments/payments.ts';
import { createWatchAccess } from './access.ts';
import { accountRoutes, guard } from './account-routes.ts';
import { eventSeqOf } from './model.ts';
import { authorizationOfHeader } from './payment-signature.ts';
import { watchTermsFor } from './payment-terms.ts';
import type { Watches } from './ports.ts';
import { watchPriceUsd } from './pricing.ts';
import { checkWatchRequest, WATCH_INPUT_CODES, watchSubject } from './request.ts';
import { watchPurchase } from './purchase.ts';
import { statusView } from './views.ts';

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

export function watchRoutes({ config, watches, payments, gate, logger }: WatchRoutesDeps): Hono<WatchEnv> {
  const { service } = watches;
  const app = new Hono<WatchEnv>();
  const terms = watchTermsFor(payments.resourceServer, config, 'http');
  const access = createWatchAccess(config, watches, payments.chain);

  app.post(WATCHES_ROUTE, async function buyWatch(c) {
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return invalid(c, WATCH_INPUT_CODES.invalidBody, 'The body must be JSON: { "domain": "example.com" }.');
    }
    const checked = checkWatchRequest(body, config.probe.allowPrivate);
    if (!checked.ok) return invalid(c, checked.reason.code, checked.reason.message);
    const { days } = checked.request;

    const purchase = watchPurchase(
      watches,
      checked.request,
      () => authorizationOfHeader(c.req.header('payment-signature')),
      logger,
    );
    const pay = gate.paidWith({
      name: WATCHES_ROUTE,
      priceUsd: watchPriceUsd(config.watches.pricePer30DaysUsd, days),
      terms: () => terms(days),
      status: 201,
    });
    const response = await pay(c, () => purchase.run(), watchSubject(checked.request));
    // Settled: the watch starts before its 201 leaves; not settled: a new one is removed.
    await purchase.finish(c.get('payment')?.outcome === 'delivered');
    return response;
  });

  app.get('/v1/watches/:watch_id', async function watchStatus(c) {
    const guarded = await guard(c, access);
    if ('response' in guarded) return guarded.response;
    const { watch } = guarded;
    const since = c.req.query('since');
    const afterSeq = since === undefined ? 0 : eventSeqOf(watch.id, since);
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
