/**
 * The operator's endpoints: `/readyz` (200 only while payments can be taken and the process is not
 * stopping; the breakers' states as detail) and `/metrics` (Prometheus text format, optionally
 * behind a bearer token). `/health` stays liveness and lives with the discovery documents.
 */
import { timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { reply, replyJson } from '../hygiene/standard-headers.ts';
import { PROBLEM_CODES } from '../../vocabulary/problems.ts';
import { sendProblem } from '../send-problem.ts';
import type { Payments } from '../../payments/payments.ts';
import type { BreakerBoard } from '../../sources/breaker.ts';
import type { PrometheusMetrics } from '../../ops/metrics.ts';

/** Paths of the operational endpoints; never rate-limited. */
export const OPS_PATHS = { readyz: '/readyz', metrics: '/metrics' } as const;
/** Longest `/readyz` waits for the facilitator's supported kinds, in milliseconds. */
export const READINESS_TIMEOUT_MS = 3_000;

export interface OpsDeps {
  metrics: PrometheusMetrics;
  payments: Payments | undefined;
  breakers: BreakerBoard | undefined;
  metricsToken: string | undefined;
}

const NO_STORE = { 'cache-control': 'no-store' };

export function opsRoutes(deps: OpsDeps): Hono {
  const { metrics, payments, breakers } = deps;
  const routes = new Hono();
  const expected = deps.metricsToken === undefined ? undefined : Buffer.from(`Bearer ${deps.metricsToken}`);

  routes.get(OPS_PATHS.readyz, async (c) => {
    const stopping = payments?.lifecycle.stopping ?? false;
    const paymentsReady = payments !== undefined && !stopping && (await within(payments.facilitatorReady()));
    const ready = paymentsReady && !stopping;
    const body = {
      status: ready ? 'ready' : 'not_ready',
      payments: paymentsReady,
      stopping,
      breakers: Object.fromEntries(breakers?.states() ?? []),
      // Like an RPC outage, the shared store's only stops paid calls (503): free work goes on here.
      ...(payments?.sharedStoreReachable
        ? { shared_store: payments.sharedStoreReachable() ? 'reachable' : 'unreachable' }
        : {}),
    };
    return replyJson(c, body, ready ? 200 : 503, NO_STORE);
  });

  routes.get(OPS_PATHS.metrics, async (c) => {
    if (expected && !sameBytes(Buffer.from(c.req.header('authorization') ?? ''), expected)) {
      return sendProblem(
        c,
        {
          status: 401,
          code: PROBLEM_CODES.unauthorized,
          title: 'Unauthorized',
          detail: 'The metrics need the bearer token set in METRICS_TOKEN.',
        },
        { 'www-authenticate': 'Bearer' },
      );
    }
    return reply(c, await metrics.registry.metrics(), 200, {
      'content-type': metrics.registry.contentType,
      ...NO_STORE,
    });
  });
  return routes;
}

/** The facilitator's readiness, counted false when it does not answer in time. */
function within(ready: Promise<boolean>): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_TIMEOUT_MS);
  });
  return Promise.race([ready, late]).finally(() => clearTimeout(timer));
}

function sameBytes(given: Buffer, expected: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}
