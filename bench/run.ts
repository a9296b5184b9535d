/**
 * `npm run bench`: HTTP throughput and memory side by side with a bare Hono app, site-health with
 * slowed upstreams, probe sharing, and paid calls on the local chain. Prints a table, or JSON with
 * `--json`. Not a test: the machine's other load moves the numbers (see the noise columns).
 *
 *   npm run bench [-- --json] [-- --only=outside,paid-window,http,site-health,paid,edge,shared-store,watches]
 *   BENCH_SECONDS=10 BENCH_REPETITIONS=3 (per autocannon run, and interleaved runs per route)
 *   BENCH_RPC_MS=0 (paid-window: each JSON-RPC call held that long, as a remote RPC's round trip)
 *
 * Without `--only` it runs the quick sections (`http` at 2 s × 3 runs, `paid`), which finish within
 * 3 minutes on the shared 2-core machine, and prints every figure beside its target; the long
 * sections run only when named.
 */
import { benchEdge } from './edge.ts';
import { benchHttp } from './http.ts';
import { benchOutside, CRTSH_DELAY_MS, OUTSIDE_BOUND_MS } from './outside.ts';
import { BLOCK_BOUND_MS } from './upstream-caps.ts';
import { benchPaid } from './paid.ts';
import { benchPaidWindow } from './paid-window.ts';
import { benchSiteHealth, DELAYS_MS, OVERHEAD_BOUND_MS } from './site-health.ts';
import { benchWatches } from './watches.ts';

/** What runs without `--only`. */
const QUICK_SECTIONS = ['http', 'paid'];

const args = process.argv.slice(2);
const json = args.includes('--json');
const only = args
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const wanted = (section: string) => (only ?? QUICK_SECTIONS).includes(section);
const seconds = Number(process.env.BENCH_SECONDS ?? (only ? 10 : 2));
const repetitions = Number(process.env.BENCH_REPETITIONS ?? 3);
const rpcMs = Number(process.env.BENCH_RPC_MS ?? 0);
const started = performance.now();

/** The issues' targets: CPU bare ÷ service per route (the unpaid 402 is `/v1/cert`'s), paid p99, RSS. */
const TARGETS = {
  cpuRatio: {
    '/v1/validate': 0.9,
    '/health': 0.9,
    '/v1/cert': 0.8,
  } as Record<string, number>,
  paidP99Ms: 600,
  rss200Mib: 250,
  rssIdleMib: 150,
};
const cpuTarget = (route: string) => TARGETS.cpuRatio[route] ?? 0.9;

const report = {
  outside: wanted('outside') ? await benchOutside() : undefined,
  paidWindow: wanted('paid-window') ? await benchPaidWindow({ rpcMs }) : undefined,
  http: wanted('http') ? await benchHttp({ seconds, repetitions }) : undefined,
  siteHealth: wanted('site-health') ? await benchSiteHealth() : undefined,
  paid: wanted('paid') ? await benchPaid() : undefined,
  edge: wanted('edge') ? await benchEdge({ seconds, repetitions }) : undefined,
  // Imported only when run: its imports alone take the process to about 380 MiB, which would
  // count against the watches' RSS bound.
  sharedStore: wanted('shared-store')
    ? await (await import('./shared-store.ts')).benchSharedStore()
    : undefined,
  watches: wanted('watches') ? await benchWatches() : undefined,
};

if (json) {
  process.stdout.write(`${JSON.stringify({ targets: TARGETS, ...report }, null, 2)}\n`);
} else {
  const out: string[] = [];
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const spread = (values: number[]) => `${Math.min(...values)}–${Math.max(...values)}`;
  if (report.outside) {
    out.push(
      `Paid checks from outside (payment left out: request to last byte), crt.sh slowed to ${CRTSH_DELAY_MS} ms, ARI answering, against crt.sh fetched directly in the same run (p50 ms)`,
      'route            service        domains calls  window  crt.sh direct  over direct  own crt.sh ms  target',
    );
    for (const row of report.outside.rows) {
      out.push(
        `${row.route.padEnd(16)} ${row.service.padEnd(14)} ${String(row.domains).padStart(7)} ${String(row.calls).padStart(5)} ${String(row.window_p50_ms).padStart(7)} ${String(row.bare_crtsh_p50_ms).padStart(14)} ${String(row.over_p50_ms).padStart(12)} ${String(row.own_crtsh_p50_ms).padStart(14)}  ${verdict(row.over_p50_ms <= OUTSIDE_BOUND_MS)} (≤ +${OUTSIDE_BOUND_MS})`,
      );
    }
    for (const loop of report.outside.eventLoops)
      out.push(
        `A ${(loop.crtsh_bytes / 1024 / 1024).toFixed(1)} MiB crt.sh answer (${loop.crtsh_rows} rows, ${loop.kind}) beside a stream of /health calls, ${loop.runs.length} runs: longest event-loop delay p50 ${loop.loop_delay_max_p50_ms} ms (target ≤ 50: ${verdict(loop.loop_delay_max_p50_ms <= 50)})`,
        ...loop.runs.map(
          (run) =>
            `  cert check ${run.check_ms} ms; ${run.health_calls} /health calls, p50 ${run.health_p50_ms} ms, longest ${run.health_max_ms} ms; event loop delay at most ${run.loop_delay_max_ms} ms, longest hold ${run.loop_block_cpu_max_ms} ms of CPU`,
        ),
        `  longest hold in CPU time p50 ${loop.loop_block_cpu_max_p50_ms} ms (${verdict(loop.loop_block_cpu_max_p50_ms <= BLOCK_BOUND_MS)}); on a loaded machine the delay also counts waiting for a core`,
      );
    out.push(
      `The other upstreams at their size caps, read by their own clients (${report.outside.caps[0]?.block_ms.length ?? 0} runs; event-loop delay / longest hold in CPU time, ms; target ≤ ${BLOCK_BOUND_MS})`,
      ...report.outside.caps.map(
        (row) =>
          `  ${row.source.padEnd(15)} ${String(Math.round(row.bytes / 1024)).padStart(5)} KiB × ${row.answers}  ${row.read.padEnd(32)} delay ${row.block_ms.join(' / ')}  hold ${row.block_cpu_ms.join(' / ')} (p50 ${row.block_cpu_p50_ms}: ${verdict(row.block_cpu_p50_ms <= BLOCK_BOUND_MS)})`,
      ),
      '',
    );
  }
  if (report.paidWindow) {
    out.push(
      `The paid window from outside (npm start, self-settlement on the local chain behind a JSON-RPC timing proxy${rpcMs > 0 ? ` holding each call ${rpcMs} ms` : ''}): the longest stretch without an RPC in flight between the paid request and the settlement's send, against crt.sh (slowed to ${CRTSH_DELAY_MS} ms) fetched directly (p50 ms)`,
      "crt.sh direct: by a client in a process of its own (the target's), and by one in the bench's process beside the fakes",
      'route            calls  window  direct, own process  over it  without the preparation  direct, bench process  over it  whole paid call  paid request → crt.sh  crt.sh → transfer sent  last RPC → crt.sh  crt.sh → next RPC  target',
      ...report.paidWindow.map(
        (row) =>
          `${row.route.padEnd(16)} ${String(row.calls).padStart(5)} ${String(row.window_p50_ms).padStart(7)} ${String(row.own_crtsh_p50_ms).padStart(20)} ${String(row.over_own_p50_ms).padStart(8)} ${String(row.over_own_unprepared_p50_ms).padStart(24)} ${String(row.bare_crtsh_p50_ms).padStart(22)} ${String(row.over_p50_ms).padStart(8)} ${String(row.call_p50_ms).padStart(16)} ${String(row.to_check_p50_ms).padStart(21)} ${String(row.to_send_p50_ms).padStart(24)} ${String(row.before_check_p50_ms).padStart(18)} ${String(row.after_check_p50_ms).padStart(18)}  ${verdict(row.over_own_p50_ms <= OUTSIDE_BOUND_MS)} (≤ +${OUTSIDE_BOUND_MS})`,
      ),
      '',
    );
  }
  if (report.http) {
    const { rows, rss_mib: rss } = report.http;
    out.push(
      `HTTP, autocannon 50 connections × ${report.http.seconds} s, ${report.http.repetitions} interleaved runs (median; range = noise)`,
      'route            service req/s    bare req/s  ratio  CPU µs/req svc/bare  CPU bare÷svc  svc p99 ms  target (CPU)',
    );
    for (const row of rows) {
      out.push(
        `${row.route.padEnd(16)} ${spread(row.service_rps).padStart(13)} ${spread(row.bare_rps).padStart(13)} ${row.ratio.toFixed(2).padStart(6)} ${`${row.service_cpu_us} / ${row.bare_cpu_us}`.padStart(19)} ${row.cpu_ratio.toFixed(2).padStart(13)} ${String(row.service_p99_ms).padStart(11)}  ${verdict(row.cpu_ratio >= cpuTarget(row.route))} (≥ ${cpuTarget(row.route)})`,
      );
    }
    out.push(
      'What each part costs, CPU µs per request: the service with it switched off, in the same interleaved runs (full service minus that; noise as above)',
      ...rows.map(
        (row) =>
          `${row.route.padEnd(16)} ${row.parts.map((part) => `${part.part}: ${part.costs_us} (without it ${part.without_cpu_us})`).join('; ')}`,
      ),
    );
    out.push(
      `RSS MiB: service idle ${rss.service_idle} (target ≤ ${TARGETS.rssIdleMib}: ${verdict(rss.service_idle <= TARGETS.rssIdleMib)}; ${rss.service_after_load} 1 s after load), 200 connections ${rss.service_200} (target ≤ ${TARGETS.rss200Mib}: ${verdict(rss.service_200 <= TARGETS.rss200Mib)}); bare idle ${rss.bare_idle}, 200 connections ${rss.bare_200}`,
      '',
    );
  }
  if (report.siteHealth) {
    out.push(`site-health, upstream delays ${JSON.stringify(DELAYS_MS)} ms, p50 ms`);
    out.push('domain              cert     dns  expiry  site-health  p90  over slowest  bound');
    for (const row of report.siteHealth.rows) {
      const p = row.p50_ms;
      out.push(
        `${row.domain.padEnd(18)} ${String(p.cert).padStart(5)} ${String(p.dns).padStart(7)} ${String(p.expiry).padStart(7)} ${String(p['site-health']).padStart(12)} ${String(row.p90_site_health_ms).padStart(4)} ${String(row.over_slowest_ms).padStart(13)}  ${verdict(row.over_slowest_ms <= OVERHEAD_BOUND_MS)} (≤ ${OVERHEAD_BOUND_MS})`,
      );
    }
    const probe = report.siteHealth.probe;
    out.push(
      `${probe.concurrent_cert_checks} concurrent cert checks of one domain: ${probe.crtsh_requests} crt.sh request(s), ${probe.probe_connections} probe connection(s)`,
      '',
    );
  }
  if (report.paid) {
    const paid = report.paid;
    out.push(
      `paid calls, local chain (self-settlement), ${paid.payers} concurrent payers, ${paid.calls} calls: p50 ${paid.p50_ms} ms, p99 ${paid.p99_ms} ms (target ≤ ${TARGETS.paidP99Ms}: ${verdict(paid.p99_ms <= TARGETS.paidP99Ms)}), ${Math.round(paid.share_over_1s * 100)} % ≥ 1 s`,
      `JSON-RPC calls per payment: ${Object.entries(paid.rpc_per_payment)
        .map(([method, count]) => `${method} ${count}`)
        .join(', ')}`,
    );
  }
  if (report.edge) {
    const edge = report.edge;
    out.push(
      '',
      `Worker in local workerd beside Node, autocannon 50 connections × ${edge.seconds} s, ${edge.repetitions} interleaved runs (bundle ${edge.bundle_gzip_kib} KiB gzip)`,
      'route                Node req/s  Worker req/s  Worker/Node  Worker p99 ms',
    );
    for (const row of edge.rows) {
      out.push(
        `${row.route.padEnd(16)} ${spread(row.node_rps).padStart(14)} ${spread(row.worker_rps).padStart(13)} ${row.ratio.toFixed(2).padStart(12)} ${String(row.worker_p99_ms).padStart(14)}`,
      );
    }
  }
  if (report.sharedStore) {
    const { paid, free_work: free, ratios } = report.sharedStore;
    out.push(
      '',
      'REDIS_URL (redis-server on loopback) against one process, same run',
      `paid calls (20 payers × 5): p50 ${paid.redis_p50_ms} ms vs ${paid.memory_p50_ms} ms (ratio ${ratios.paid_p50}), p99 ${paid.redis_p99_ms} vs ${paid.memory_p99_ms} ms`,
      `free-work limit on /v1/validate, 50 connections: ${free.redis_rps} vs ${free.memory_rps} req/s (ratio ${ratios.free_work_rps}), p99 ${free.redis_p99_ms} vs ${free.memory_p99_ms} ms`,
    );
    const { rpc_150ms: rpc, redis_200ms: slowRedis } = report.sharedStore.fleet;
    for (const [what, pace] of [
      ['every JSON-RPC call +150 ms, bursts of 48 (one instance without Redis)', rpc],
      ['every Redis round trip +200 ms, bursts of 36 (one instance of the fleet)', slowRedis],
    ] as const) {
      out.push(
        `three instances against one, ${what}: ${pace.fleet_per_s} vs ${pace.one_per_s} paid calls/s (ratio ${pace.ratio}), lost ${pace.fleet_lost} vs ${pace.one_lost} (target none on either side, charged exactly: ${verdict(pace.fleet_lost === 0 && pace.one_lost === 0 && pace.charged_as_owed)})`,
        ...pace.detail.split('\n').map((line) => `  ${line}`),
      );
    }
  }
  if (report.watches) {
    const w = report.watches;
    const interval = w.interval_s * 1000;
    out.push(
      '',
      `${w.watches} pull-only watches, one Node instance (SQLite), interval ${w.interval_s} s, ${w.seconds} s: ${w.checks} checks`,
      `check lag p50 ${w.lag_p50_ms} ms, p99 ${w.lag_p99_ms} ms (target < one interval: ${verdict(w.lag_p99_ms < interval)}); peak RSS ${w.rss_peak_mib} MiB (bound ≤ ${w.rss_bound_mib}: ${verdict(w.rss_peak_mib <= w.rss_bound_mib)})`,
    );
  }
  out.push('', ...summary());
  process.stdout.write(`${out.join('\n')}\n`);
}

/** The figures of this run beside their targets, one line each, and how long the run took. */
function summary(): string[] {
  const rows: [string, string, string, boolean][] = [];
  for (const row of report.http?.rows ?? []) {
    const target = cpuTarget(row.route);
    rows.push([
      `CPU bare ÷ service ${row.route}`,
      row.cpu_ratio.toFixed(2),
      `≥ ${target}`,
      row.cpu_ratio >= target,
    ]);
  }
  if (report.http) {
    const { rss_mib: rss } = report.http;
    rows.push([
      'RSS idle, MiB',
      String(rss.service_idle),
      `≤ ${TARGETS.rssIdleMib}`,
      rss.service_idle <= TARGETS.rssIdleMib,
    ]);
    rows.push([
      'RSS at 200 connections, MiB',
      String(rss.service_200),
      `≤ ${TARGETS.rss200Mib}`,
      rss.service_200 <= TARGETS.rss200Mib,
    ]);
  }
  if (report.paid)
    rows.push([
      `paid p99, ${report.paid.payers} payers, ms`,
      String(report.paid.p99_ms),
      `≤ ${TARGETS.paidP99Ms}`,
      report.paid.p99_ms <= TARGETS.paidP99Ms,
    ]);
  for (const row of report.outside?.rows ?? [])
    rows.push([
      `${row.route} window over crt.sh direct (${row.service}), ms`,
      signed(row.over_p50_ms),
      `≤ +${OUTSIDE_BOUND_MS}`,
      row.over_p50_ms <= OUTSIDE_BOUND_MS,
    ]);
  for (const row of report.paidWindow ?? [])
    rows.push([
      `${row.route} paid window over crt.sh direct (own process; bench process ${signed(row.over_p50_ms)}; without the preparation's RPC ${signed(row.over_own_unprepared_p50_ms)}), ms`,
      signed(row.over_own_p50_ms),
      `≤ +${OUTSIDE_BOUND_MS}`,
      row.over_own_p50_ms <= OUTSIDE_BOUND_MS,
    ]);
  for (const loop of report.outside?.eventLoops ?? [])
    rows.push([
      `5 MiB crt.sh answer (${loop.kind}): hold p50, ms`,
      String(loop.loop_block_cpu_max_p50_ms),
      `≤ ${BLOCK_BOUND_MS}`,
      loop.loop_block_cpu_max_p50_ms <= BLOCK_BOUND_MS,
    ]);
  for (const row of report.outside?.caps ?? [])
    rows.push([
      `${row.source} at its cap: hold p50, ms`,
      String(row.block_cpu_p50_ms),
      `≤ ${BLOCK_BOUND_MS}`,
      row.block_cpu_p50_ms <= BLOCK_BOUND_MS,
    ]);
  const width = Math.max(...rows.map(([what]) => what.length), 6);
  return [
    `Summary (${Math.round((performance.now() - started) / 1000)} s${only ? '' : '; the long sections: --only=outside,paid-window,site-health,edge,shared-store,watches'})`,
    ...rows.map(
      ([what, measured, target, met]) =>
        `${what.padEnd(width)}  ${measured.padStart(7)}  ${target.padEnd(7)}  ${met ? 'met' : 'NOT met'}`,
    ),
  ];
}

/** A difference in ms with its sign: +3.2, -1.5. */
function signed(ms: number): string {
  return ms < 0 ? String(ms) : `+${ms}`;
}
