/**
 * The Hono application: paid check routes and the free validate route generated from the catalog,
 * the watch, discovery and ops routes, `/mcp` when given its endpoint, problem JSON for every error.
 * Payment wraps each paid route after input validation. `src/app.ts` gives it the MCP endpoint.
 */
import { Hono } from 'hono';
import type { Logger } from 'pino';
import { type CheckRunners, freeOperations, paidOperations } from '../catalog.ts';
import type { Config } from '../config.ts';
import { validateDomainJson } from '../domain/validate.ts';
import { type McpEndpoint, mcpRoutes } from './mcp/routes.ts';
import type { BreakerBoard } from '../sources/breaker.ts';
import { type FreeWorkDeps, freeWorkLimit } from './ops/free-work.ts';
import { instrumentRunners, requestCounter } from './ops/instrument.ts';
import { createPrometheusMetrics, type PrometheusMetrics } from '../ops/metrics.ts';
import { opsRoutes } from './ops/routes.ts';
import { createPaymentGate, NO_OP_GATE, paidQueryTooLong } from './payment-gate.ts';
import type { Watches } from '../watches/ports.ts';
import { watchRoutes } from './watches/routes.ts';
import type { Payments } from '../payments/payments.ts';
import { readAssetFile } from './discovery/asset-files.ts';
import type { AssetLoader } from '../vocabulary/page-assets.ts';
import { discoveryRoutes } from './discovery/routes.ts';
import { domainInput, validDomain } from './domain-param.ts';
import {
  applyHttpHygiene,
  JSON_CONTENT,
  notFoundOrNotAllowed,
  type RequestLogVariables,
  reply,
  replyJson,
  type StandardHeaderVariables,
} from './hygiene/index.ts';
import { outcomeProblem } from '../vocabulary/outcome-problem.ts';
import { PROBLEM_CODES } from '../vocabulary/problems.ts';
import { sendProblem } from './send-problem.ts';

export interface HttpAppDeps {
  config: Config;
  runners: CheckRunners;
  logger: Logger;
  /**
   * x402 payment for the paid routes, the watch routes and the MCP tools (`service.ts` always passes
   * it). Tests of the checks themselves pass `NO_OP_GATE` instead, explicitly.
   */
  payments: Payments | typeof NO_OP_GATE;
  /** Where requests, checks and upstream calls are counted (`/metrics`); default: a fresh registry. */
  metrics?: PrometheusMetrics;
  /** The upstream circuit breakers, shown in `/metrics` and `/readyz`. */
  breakers?: BreakerBoard;
  /** Reads the home page's files; default: from disk (Node). */
  assets?: AssetLoader;
  /** Where the free-work limit keeps its buckets and who a request is from; default: Node's peer, in memory. */
  freeWork?: Pick<FreeWorkDeps, 'buckets' | 'client'>;
  /** This runtime's watches; the watch routes are mounted only with them (and payments). */
  watches?: Watches;
  /**
   * Loads the endpoint `/mcp` serves, with the app's (instrumented) runners, on the first POST;
   * `/mcp` is mounted only with it (and payments).
   */
  mcp?: (parts: { runners: CheckRunners; payments: Payments }) => Promise<McpEndpoint>;
}

export type AppEnv = { Variables: StandardHeaderVariables & RequestLogVariables };

export function createHttpApp(deps: HttpAppDeps): Hono<AppEnv> {
  const { config, logger, breakers } = deps;
  const payments = deps.payments === NO_OP_GATE ? undefined : deps.payments;
  const metrics = deps.metrics ?? createPrometheusMetrics();
  if (breakers) metrics.watchBreakers(breakers.states);
  if (payments) metrics.watchReadiness(payments.readiness);
  const runners = instrumentRunners(deps.runners, metrics, config.upstreams.dohFallbackUrl);
  const app = new Hono<AppEnv>();
  const limiter = freeWorkLimit(config, { metrics, logger, ...deps.freeWork });
  applyHttpHygiene(app, { logger, limiter, count: requestCounter(metrics) });
  app.route('/', opsRoutes({ metrics, payments, breakers, metricsToken: config.ops.metricsToken }));
  const gate = payments ? createPaymentGate(payments) : undefined;

  for (const operation of paidOperations) {
    const pay = gate?.paid(operation);
    const challenge = gate?.challenge(operation);
    app.get(operation.route, async function paidCheck(c) {
      const tooLong = gate && paidQueryTooLong(c);
      if (tooLong) return tooLong;
      const domain = validDomain(c);
      if (domain instanceof Response) return domain;
      // Hono serves HEAD with the GET handlers: answer the challenge without running anything.
      if (challenge && c.req.method === 'HEAD') return challenge(c);
      const refusal = await runners.admit(operation.id, domain);
      if (refusal) return sendProblem(c, outcomeProblem(refusal));
      const run = () => operation.run(runners, domain);
      if (pay) return pay(c, run, domain.domain);
      const outcome = await run();
      if (outcome.type === 'result') return replyJson(c, outcome.result);
      return sendProblem(c, outcomeProblem(outcome));
    });
  }

  for (const operation of freeOperations) {
    if (operation.id !== 'v1_validate' || !operation.route) continue;
    app.get(operation.route, function validate(c) {
      const input = domainInput(c);
      return input instanceof Response ? input : reply(c, validateDomainJson(input), 200, JSON_CONTENT);
    });
  }

  if (payments && gate && deps.watches) {
    app.route('/', watchRoutes({ config, watches: deps.watches, payments, gate, logger }));
  }

  app.route('/', discoveryRoutes(deps.config, deps.assets ?? readAssetFile));
  const loadMcp = deps.mcp;
  if (payments && loadMcp) {
    app.route(
      '/',
      mcpRoutes(config.publicBaseUrl, () => loadMcp({ runners, payments })),
    );
  }
  app.notFound(notFoundOrNotAllowed(app));
  app.onError((error, c) => {
    logger.error({ err: error, path: new URL(c.req.url).pathname }, 'unhandled error');
    return sendProblem(c, {
      status: 500,
      code: PROBLEM_CODES.internalError,
      title: 'Internal error',
      detail: 'The service failed to handle this request. You were not charged.',
    });
  });
  return app;
}
