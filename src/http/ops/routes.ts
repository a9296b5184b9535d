/**
 * The operator's endpoints: `/readyz` (200 only while payments can be taken and the process is not
 * stopping, the causes named otherwise; the breakers' states as detail) and `/metrics` (Prometheus text format, optionally
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
    const report = payments ? await payments.readiness() : undefined;
    const ready = report?.ready ?? false;
    const body = {
      status: ready ? 'ready' : 'not_ready',
      payments: ready,
      stopping: payments?.lifecycle.stopping ?? false,
      ...(report ? { causes: report.causes } : {}),
      breakers: Object.fromEntries(breakers?.states() ?? []),
      ...(report?.sharedStore ? { shared_store: report.sharedStore } : {}),
      ...(report?.settlementRpc ? { settlement_rpc: report.settlementRpc } : {}),
      ...(report?.clockSkewSeconds !== undefined ? { clock_skew_s: report.clockSkewSeconds } : {}),
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

function sameBytes(given: Buffer, expected: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}
