/**
 * What the service counts, behind a small interface: the Node entry records into a `prom-client`
 * registry scraped at `/metrics`; another runtime (a Worker) can supply its own `Metrics`. Labels
 * come from fixed sets (catalog routes, operation ids, source names, outcomes), never raw input.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { BreakerState } from '../sources/breaker.ts';

/**
 * Payment events: a 402 challenge, a verified payment, a settlement, a failed one, a refused payment,
 * a paid answer sent again for a payment identifier.
 */
export type PaymentEvent =
  'challenged' | 'verified' | 'settled' | 'settlement_failed' | 'refused' | 'replayed';

export interface Metrics {
  /** One answered HTTP request; `route` is a catalog or document route, never the raw path. */
  request(route: string, status: number): void;
  /** One check run of `operation` that ended with `outcome` (`result`, `upstream_failed`, …). */
  check(operation: string, outcome: string, seconds: number): void;
  /** One upstream call of `source`: `ok`, `error`, `skipped` or `cached` (then `seconds` is 0). */
  upstream(source: string, outcome: 'ok' | 'error' | 'skipped' | 'cached', seconds: number): void;
  /** A payment event; `atomicAmount` (USDC atomic units) with `settled`. */
  payment(event: PaymentEvent, atomicAmount?: string): void;
  /** +1 when a paid request starts its payment, -1 when it ends. */
  paidInFlight(delta: 1 | -1): void;
  /** A request refused 429. */
  rateLimited(): void;
}

/** Records nothing (tests of other parts, or a runtime without metrics). */
export const noMetrics: Metrics = {
  request() {},
  check() {},
  upstream() {},
  payment() {},
  paidInFlight() {},
  rateLimited() {},
};

/** What readiness reports, as the metrics show it: the causes come from a fixed set. */
export interface ReadinessSample {
  ready: boolean;
  causes: readonly string[];
  /** Our clock minus the chain's, once measured. */
  clockSkewSeconds?: number;
}

export interface PrometheusMetrics extends Metrics {
  readonly registry: Registry;
  /** Exports the state of each named breaker at scrape time. */
  watchBreakers(states: () => Iterable<[string, BreakerState]>): void;
  /** Exports readiness (as `/readyz` judges it) at scrape time. */
  watchReadiness(readiness: () => Promise<ReadinessSample>): void;
}

const PREFIX = 'website_checks_';
const BREAKER_VALUE: Record<BreakerState, number> = { closed: 0, open: 1, half_open: 2 };

/**
 * A fresh registry with the service's metrics and, unless `processMetrics` is false, Node's process
 * metrics (a Worker isolate has no process to report on).
 */
export function createPrometheusMetrics({ processMetrics = true } = {}): PrometheusMetrics {
  const registry = new Registry();
  if (processMetrics) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const answered = countAnswers(registers);

  const checks = new Histogram({
    name: `${PREFIX}check_duration_seconds`,
    help: 'Duration of check runs, by operation and outcome.',
    labelNames: ['operation', 'outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 12, 16],
    registers,
  });
  const upstreams = new Histogram({
    name: `${PREFIX}upstream_request_duration_seconds`,
    help: 'Upstream calls by source and outcome (ok, error, skipped by an open breaker, cached).',
    labelNames: ['source', 'outcome'] as const,
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8],
    registers,
  });
  const cacheHits = new Counter({
    name: `${PREFIX}upstream_cache_hits_total`,
    help: 'Upstream answers served from the in-memory caches, by source.',
    labelNames: ['source'] as const,
    registers,
  });
  const payments = new Counter({
    name: `${PREFIX}payments_total`,
    help: 'Payment events: challenged, verified, settled, settlement_failed, refused.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const settledAtomic = new Counter({
    name: `${PREFIX}usdc_settled_atomic_total`,
    help: 'USDC settled, in atomic units (1000000 = 1 USDC).',
    registers,
  });
  const inFlight = new Gauge({
    name: `${PREFIX}paid_requests_in_flight`,
    help: 'Paid requests between payment verification and their answer.',
    registers,
  });
  const limited = new Counter({
    name: `${PREFIX}rate_limited_total`,
    help: 'Requests refused 429 by the free-work rate limit.',
    registers,
  });
  let breakerStates: () => Iterable<[string, BreakerState]> = () => [];
  gaugeBreakers(registers, () => breakerStates());

  let readiness: (() => Promise<ReadinessSample>) | undefined;
  gaugeReadiness(registers, () => readiness);

  return {
    registry,
    watchBreakers(states) {
      breakerStates = states;
    },
    watchReadiness(report) {
      readiness = report;
    },
    request(route, status) {
      let byStatus = answered.get(route);
      if (!byStatus) answered.set(route, (byStatus = new Map()));
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    },
    check: (operation, outcome, seconds) => checks.observe({ operation, outcome }, seconds),
    upstream(source, outcome, seconds) {
      upstreams.observe({ source, outcome }, seconds);
      if (outcome === 'cached') cacheHits.inc({ source });
    },
    payment(event, atomicAmount) {
      payments.inc({ outcome: event });
      // Counters are doubles: exact to 2^53 atomic units (9e9 USDC), ample for one process's life.
      if (event === 'settled' && atomicAmount) settledAtomic.inc(Number(atomicAmount));
    },
    paidInFlight: (delta) => inFlight.inc(delta),
    rateLimited: () => limited.inc(),
  };
}

/** The answered-requests counter, reporting the counts by route and status in the map it returns. */
function countAnswers(registers: Registry[]): Map<string, Map<number, number>> {
  // Counted in plain maps and handed to the counter at scrape time: a labelled `inc` per request
  // hashes its labels, a few hundred nanoseconds of every small request.
  const answered = new Map<string, Map<number, number>>();
  new Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by route and status.',
    labelNames: ['route', 'status'] as const,
    registers,
    collect() {
      this.reset();
      for (const [route, byStatus] of answered) {
        for (const [status, count] of byStatus) this.inc({ route, status: String(status) }, count);
      }
    },
  });
  return answered;
}

/** The breakers' state gauge, read from `states()` at each scrape. */
function gaugeBreakers(registers: Registry[], states: () => Iterable<[string, BreakerState]>): void {
  new Gauge({
    name: `${PREFIX}circuit_breaker_state`,
    help: 'Upstream circuit breaker state by source: 0 closed, 1 open, 2 half-open.',
    labelNames: ['source'] as const,
    registers,
    collect() {
      for (const [source, state] of states()) this.set({ source }, BREAKER_VALUE[state]);
    },
  });
}

/** The readiness gauges, judged at each scrape by the report `readiness()` names then. */
function gaugeReadiness(
  registers: Registry[],
  readiness: () => (() => Promise<ReadinessSample>) | undefined,
): void {
  // One judgement per scrape, shared by the three gauges.
  let sample: Promise<ReadinessSample | undefined> | undefined;
  const sampled = () =>
    (sample ??= (readiness()?.() ?? Promise.resolve(undefined)).finally(() => {
      sample = undefined;
    }));
  new Gauge({
    name: `${PREFIX}ready`,
    help: 'Whether payments can be taken now (/readyz): 1 ready, 0 not.',
    registers,
    async collect() {
      const now = await sampled();
      if (now) this.set(now.ready ? 1 : 0);
    },
  });
  new Gauge({
    name: `${PREFIX}not_ready`,
    help: 'Why /readyz answers 503, by cause (1 while the cause holds).',
    labelNames: ['cause'] as const,
    registers,
    async collect() {
      this.reset();
      for (const cause of (await sampled())?.causes ?? []) this.set({ cause }, 1);
    },
  });
  new Gauge({
    name: `${PREFIX}clock_skew_seconds`,
    help: "This instance's clock minus the chain's latest time, as last measured.",
    registers,
    async collect() {
      const skew = (await sampled())?.clockSkewSeconds;
      if (skew !== undefined) this.set(skew);
    },
  });
}
