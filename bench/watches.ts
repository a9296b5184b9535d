/**
 * 10,000 pull-only watches on one Node instance (the SQLite store in a temporary file, the real
 * scheduler) at a short interval: how late checks run against their schedule (p50/p99 lag, to
 * stay under one interval) and the process's peak RSS. The check answers a canned site-health
 * result at once, so the figures are the scheduler's and the store's own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import type { SiteHealthResult } from '../src/checks/site-health/result.ts';
import { outputExampleFor } from '../src/payments/server/output-examples.ts';
import { activate, newWatch } from '../src/watches/model.ts';
import { noWatchMetrics } from '../src/watches/metrics.ts';
import { createWatchScheduler } from '../src/watches/scheduler.ts';
import { createWatchSecrets } from '../src/watches/secrets.ts';
import { openSqliteWatchStore } from '../src/sqlite/watch-store.ts';

export interface WatchesBench {
  watches: number;
  interval_s: number;
  seconds: number;
  checks: number;
  lag_p50_ms: number;
  lag_p99_ms: number;
  rss_peak_mib: number;
  rss_bound_mib: number;
}

/** Peak RSS the run must stay under. */
export const WATCH_RSS_BOUND_MIB = 384;

export async function benchWatches({
  watches = 10_000,
  intervalS = 10,
  seconds = 35,
} = {}): Promise<WatchesBench> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-watches-'));
  const store = openSqliteWatchStore(join(dir, 'watches.db'));
  const result = outputExampleFor('v1_site_health') as SiteHealthResult;
  const start = Date.now();
  for (let i = 0; i < watches; i += 1) {
    // Bought over the last interval, as a busy service sells them: each watch's first slot is at
    // least an interval after its purchase, so none is overdue when the run starts.
    const now = start + Math.floor((i * intervalS * 1000) / watches) - intervalS * 1000;
    const pending = newWatch({
      id: `wat_bench${i}`,
      domain: `site${i}.example.com`,
      days: 30,
      webhookUrl: null,
      intervalS,
      dayS: 86_400,
      now,
      result,
    });
    await store.insert(pending);
    const { watch, events } = activate(pending, now, 86_400);
    await store.commit({ watch, expectedVersion: pending.version, events, deliveries: [] });
  }
  const lags: number[] = [];
  let rssPeak = process.memoryUsage().rss;
  const scheduler = createWatchScheduler({
    store,
    check: async () => ({ type: 'result', result }),
    send: async () => ({ kind: 'answered', status: 204 }),
    secrets: createWatchSecrets('bench-key-0123456789abcdef0123456789'),
    dayS: 86_400,
    logger: pino({ level: 'silent' }),
    metrics: { ...noWatchMetrics, checkLag: (s) => lags.push(s * 1000) },
    concurrency: 4,
  });
  scheduler.start();
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    await sleep(100);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }
  await scheduler.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  lags.sort((a, b) => a - b);
  const at = (q: number) => Math.round(lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] ?? 0);
  return {
    watches,
    interval_s: intervalS,
    seconds,
    checks: lags.length,
    lag_p50_ms: at(0.5),
    lag_p99_ms: at(0.99),
    rss_peak_mib: Math.round(rssPeak / 2 ** 20),
    rss_bound_mib: WATCH_RSS_BOUND_MIB,
  };
}
