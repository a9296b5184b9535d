/**
 * The watch routes: `POST /v1/watches` (paid, exact x402, the price pro rata of `days`; the body
 * is validated before any payment logic), `GET` and `DELETE /v1/watches/{watch_id}` (free, with
 * the watch's bearer token; a wrong token and an unknown id are the same 404).
 */
import { type Context, Hono } from 'hono';
import type { Logger } from 'pino';
import { WATCHES_ROUTE } from '../catalog.ts';
import type { Config } from '../config.ts';
import type { RequestLogVariables } from '../http/hygiene/request-log.ts';
import { replyJson } from '../http/hygiene/standard-headers.ts';
import { PROBLEM_CODES } from '../vocabulary/problems.ts';
import { sendProblem } from '../http/send-problem.ts';
import type { PaymentGate } from '../http/payment-gate.ts';
import type { Payments } from '../payments/payments.ts';
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

/** Longest id and token looked up; anything longer cannot be one (404 without a look). */
const MAX_ID_LENGTH = 64;
const MAX_TOKEN_LENGTH = 128;

const NOT_FOUND = {
  status: 404 as const,
  code: PROBLEM_CODES.notFound,
  title: 'Not found',
  detail: 'No watch with this id is managed by this token.',
};

function bearer(c: Context<WatchEnv>): string | null {
  const match = /^Bearer +(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
  return match?.[1] && match[1].length <= MAX_TOKEN_LENGTH ? match[1] : null;
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

  async function authorized(c: Context<WatchEnv>) {
    const id = c.req.param('watch_id') ?? '';
    const token = bearer(c);
    if (token === null || id.length > MAX_ID_LENGTH) return null;
    return service.authorized(id, token);
  }

  app.get('/v1/watches/:watch_id', async function watchStatus(c) {
    const watch = await authorized(c);
    if (!watch) return sendProblem(c, NOT_FOUND);
    const since = c.req.query('since');
    const afterSeq = since === undefined ? 0 : eventSeqOf(watch.id, since);
    if (afterSeq === null) {
      return invalid(c, 'invalid_since', "`since` must be the id of one of this watch's events.");
    }
    const { events, attempts } = await service.history(watch.id, afterSeq);
    return replyJson(c, statusView(watch, events, attempts), 200, { 'cache-control': 'private, no-store' });
  });

  app.delete('/v1/watches/:watch_id', async function watchCancel(c) {
    const watch = await authorized(c);
    if (!watch) return sendProblem(c, NOT_FOUND);
    const after = (await service.cancel(watch.id)) ?? watch;
    const { events, attempts } = await service.history(watch.id, 0);
    return replyJson(c, statusView(after, events, attempts), 200, { 'cache-control': 'private, no-store' });
  });

  return app;
}
