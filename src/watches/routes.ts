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
import { outcomeProblem } from '../http/outcome-problem.ts';
import { PROBLEM_CODES, sendProblem } from '../http/problems.ts';
import type { PaymentGate } from '../http/payment-gate.ts';
import type { Payments } from '../payments/payments.ts';
import { eventSeqOf } from './model.ts';
import { extendPath, watchTermsFor } from './payment-terms.ts';
import type { Watches } from './ports.ts';
import { watchPriceUsd } from './pricing.ts';
import {
  EXTEND_ROUTE,
  extensionReader,
  WATCH_INPUT_CODES,
  watchInputBoundsOf,
  watchRequestReader,
  watchSubject,
} from './request.ts';
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

const NOT_ACTIVE_REASON = {
  code: 'watch_not_active',
  message: 'Only an active watch is extended; this one has ended or was cancelled.',
};

const NOT_ACTIVE = {
  status: 409 as const,
  code: NOT_ACTIVE_REASON.code,
  title: 'Watch not active',
  detail: NOT_ACTIVE_REASON.message,
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
  const readRequest = watchRequestReader(watchInputBoundsOf(config));
  const readExtension = extensionReader(watchInputBoundsOf(config));

  app.post(WATCHES_ROUTE, async function buyWatch(c) {
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return invalid(c, WATCH_INPUT_CODES.invalidBody, 'The body must be JSON: { "domain": "example.com" }.');
    }
    const checked = readRequest(body);
    if (!checked.ok) return invalid(c, checked.reason.code, checked.reason.message);
    const { days, webhookUrl } = checked.request;
    const unreachable = webhookUrl === null ? null : await watches.reach(webhookUrl);
    if (unreachable) return sendProblem(c, outcomeProblem(unreachable));

    const purchase = watchPurchase(watches, checked.request, logger);
    const pay = gate.paidWith({
      name: WATCHES_ROUTE,
      priceUsd: watchPriceUsd(config.watches.pricePer30DaysUsd, days),
      terms: () => terms.purchase(checked.request),
      status: 201,
      keptResult: true,
    });
    return pay(c, purchase.run, watchSubject(checked.request), purchase.afterSettlement);
  });

  /** The watch this request may manage (its Bearer token), or null: the one place that decides who may. */
  async function authorized(c: Context<WatchEnv>) {
    const id = c.req.param('watch_id') ?? '';
    const token = bearer(c);
    if (token === null || id.length > MAX_ID_LENGTH) return null;
    return service.authorized(id, token);
  }

  app.post('/v1/watches/:watch_id/extend', async function extendWatch(c) {
    const watch = await authorized(c);
    if (!watch) return sendProblem(c, NOT_FOUND);
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return invalid(c, WATCH_INPUT_CODES.invalidBody, 'The body must be JSON: { "days": 30 }.');
    }
    const checked = readExtension(body);
    if (!checked.ok) return invalid(c, checked.reason.code, checked.reason.message);
    if (watch.status !== 'active') return sendProblem(c, NOT_ACTIVE);
    const { days } = checked;
    const pay = gate.paidWith({
      name: EXTEND_ROUTE,
      priceUsd: watchPriceUsd(config.watches.pricePer30DaysUsd, days),
      terms: () => terms.extension(watch.id, days),
      keptResult: true,
    });
    return pay(
      c,
      async (paying) => {
        const after = await service.extend(watch.id, days, paying.key);
        // Ended or cancelled meanwhile: nothing to extend, nothing settled.
        if (after?.status !== 'active') return { type: 'invalid_input', reason: NOT_ACTIVE_REASON };
        const { events, attempts } = await service.history(watch.id, 0);
        return { type: 'result', result: statusView(after, events, attempts) };
      },
      `${extendPath(watch.id)} ${days}`,
    );
  });

  app.get('/v1/watches/:watch_id', async function watchStatus(c) {
    const watch = await authorized(c);
    if (!watch) return sendProblem(c, NOT_FOUND);
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
    const watch = await authorized(c);
    if (!watch) return sendProblem(c, NOT_FOUND);
    const after = (await service.cancel(watch.id)) ?? watch;
    const { events, attempts } = await service.history(watch.id, 0);
    return replyJson(c, statusView(after, events, attempts), 200, { 'cache-control': 'private, no-store' });
  });

  return app;
}
