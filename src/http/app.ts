/**
 * The Hono application: paid check routes and the free validate route generated from the catalog,
 * problem JSON for every error. Payment wraps each paid route after input validation.
 */
import { Hono } from 'hono';
import type { Logger } from 'pino';
import { type CheckRunners, freeOperations, paidOperations } from '../catalog.ts';
import type { Config } from '../config.ts';
import { validateDomain } from '../domain/validate.ts';
import { mcpRoutes } from '../mcp/routes.ts';
import type { BreakerBoard } from '../ops/breaker.ts';
import { freeWorkLimit } from '../ops/free-work.ts';
import { countRequests, instrumentRunners } from '../ops/instrument.ts';
import { createPrometheusMetrics, type PrometheusMetrics } from '../ops/metrics.ts';
import { opsRoutes } from '../ops/routes.ts';
import { createPaymentGate } from '../payments/gate.ts';
import type { Payments } from '../payments/payments.ts';
import { readAssetFile } from './discovery/asset-files.ts';
import type { AssetLoader } from './discovery/page-assets.ts';
import { discoveryRoutes } from './discovery/routes.ts';
import { type DomainVariables, requireDomainInput, requireValidDomain } from './domain-param.ts';
import { applyHttpHygiene } from './hygiene/index.ts';
import { outcomeProblem } from './outcome-problem.ts';
import { PROBLEM_CODES, sendProblem } from './problems.ts';

export interface AppDeps {
  config: Config;
  runners: CheckRunners;
  logger: Logger;
  /**
   * x402 payment for the paid routes and the MCP tools; `/mcp` is mounted only with it. Absent only
   * in tests that exercise the checks themselves; `main.ts` always provides it.
   */
  payments?: Payments;
  /** Where requests, checks and upstream calls are counted (`/metrics`); default: a fresh registry. */
  metrics?: PrometheusMetrics;
  /** The upstream circuit breakers, shown in `/metrics` and `/readyz`. */
  breakers?: BreakerBoard;
  /** Reads the home page's files; default: from disk (Node). */
  assets?: AssetLoader;
}

export type AppEnv = { Variables: DomainVariables };

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const { config, logger, payments, breakers } = deps;
  const metrics = deps.metrics ?? createPrometheusMetrics();
  if (breakers) metrics.watchBreakers(breakers.states);
  const runners = instrumentRunners(deps.runners, metrics, config.upstreams.dohFallbackUrl);
  const app = new Hono<AppEnv>();
  app.use(countRequests(metrics));
  applyHttpHygiene(app, { logger });
  app.use(freeWorkLimit(config, metrics));
  app.route('/', opsRoutes({ metrics, payments, breakers, metricsToken: config.ops.metricsToken }));
  const gate = payments ? createPaymentGate(payments) : undefined;

  for (const operation of paidOperations) {
    const pay = gate?.paid(operation);
    const challenge = gate?.challenge(operation);
    app.get(
      operation.route,
      requireDomainInput(),
      requireValidDomain(),
      async function headIsChallenge(c, next) {
        // Hono serves HEAD with the GET handlers: answer the challenge without running anything.
        if (challenge && c.req.method === 'HEAD') return challenge(c);
        await next();
      },
      async function admit(c, next) {
        const refusal = await runners.admit(operation.id, c.get('domain'));
        if (refusal) return sendProblem(c, outcomeProblem(refusal));
        await next();
      },
      async function runCheck(c) {
        const run = () => operation.run(runners, c.get('domain'));
        if (pay) return pay(c, run);
        const outcome = await run();
        if (outcome.type === 'result') return c.json(outcome.result);
        return sendProblem(c, outcomeProblem(outcome));
      },
    );
  }

  for (const operation of freeOperations) {
    if (operation.id !== 'v1_validate' || !operation.route) continue;
    app.get(operation.route, requireDomainInput(), (c) => c.json(validateDomain(c.get('domainInput'))));
  }

  app.route('/', discoveryRoutes(deps.config, deps.assets ?? readAssetFile));
  if (payments) app.route('/', mcpRoutes({ payments, config: deps.config, runners, logger }));
  app.notFound((c) =>
    sendProblem(c, {
      status: 404,
      code: PROBLEM_CODES.notFound,
      title: 'Not found',
      detail: `No resource at ${new URL(c.req.url).pathname}. See /openapi.json or /llms.txt.`,
    }),
  );
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
