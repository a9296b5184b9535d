/**
 * What watches count: watches by status, checks run, events raised, delivery attempts by outcome,
 * and how late checks and deliveries ran against their schedule. The Node entry records into the
 * `/metrics` registry; another runtime may supply its own `WatchMetrics`.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DeliveryVerdict } from './delivery.ts';
import type { WatchEventType, WatchStatus } from './model.ts';

export interface WatchMetrics {
  /** One scheduled check: `result` or the failure's code. */
  check(outcome: string): void;
  event(type: WatchEventType): void;
  delivery(outcome: DeliveryVerdict['kind']): void;
  /** How late a check ran after its `nextCheckAt`. */
  checkLag(seconds: number): void;
  /** How late a delivery attempt ran after its `dueAt`. */
  deliveryLag(seconds: number): void;
}

export const noWatchMetrics: WatchMetrics = {
  check() {},
  event() {},
  delivery() {},
  checkLag() {},
  deliveryLag() {},
};

const PREFIX = 'website_checks_watch';
const LAG_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800, 3600];

/** Registers the watch metrics in `registry`; `counts` is asked at scrape time. */
export function prometheusWatchMetrics(
  registry: Registry,
  counts: () => Promise<Record<WatchStatus, number>>,
): WatchMetrics {
  const registers = [registry];
  new Gauge({
    name: 'website_checks_watches',
    help: 'Watches by status (pending, active, ended, cancelled).',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const byStatus = await counts().catch(() => null);
      if (byStatus) for (const [status, n] of Object.entries(byStatus)) this.set({ status }, n);
    },
  });
  const checks = new Counter({
    name: `${PREFIX}_checks_total`,
    help: 'Scheduled watch checks, by outcome.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const events = new Counter({
    name: `${PREFIX}_events_total`,
    help: 'Watch events raised, by type.',
    labelNames: ['type'] as const,
    registers,
  });
  const deliveries = new Counter({
    name: `${PREFIX}_deliveries_total`,
    help: 'Webhook delivery attempts, by outcome (delivered, retry, given_up, gone).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const checkLag = new Histogram({
    name: `${PREFIX}_check_lag_seconds`,
    help: 'How late a watch check ran after it was due.',
    buckets: LAG_BUCKETS,
    registers,
  });
  const deliveryLag = new Histogram({
    name: `${PREFIX}_delivery_lag_seconds`,
    help: 'How late a webhook delivery attempt ran after it was due.',
    buckets: LAG_BUCKETS,
    registers,
  });
  return {
    check: (outcome) => checks.inc({ outcome }),
    event: (type) => events.inc({ type }),
    delivery: (outcome) => deliveries.inc({ outcome }),
    checkLag: (seconds) => checkLag.observe(seconds),
    deliveryLag: (seconds) => deliveryLag.observe(seconds),
  };
}
