/**
 * Start-up (loading several hundred modules, starting the local chain) allocates fast enough that
 * V8 grows the young generation to its maximum (3 × 16 MiB with `--max-semi-space-size=16`), and
 * keeps it while the process then sits idle: memory holding nothing. One full collection that
 * reduces the heap's footprint, once the server listens, hands it back. A burst of requests grows
 * it again, and V8 shrinks it only at a collection, which an idle process never runs (its own
 * memory reducer starts after a full collection, and a burst of small requests makes none): so a
 * burst's growth is handed back the same way once the requests have stopped for a while.
 */
import { performance } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** Runs one memory-reducing full GC. */
export function releaseStartupMemory(): void {
  // The collector is reachable only with --expose-gc; set now, it shows in a new context only, and
  // is not left visible to the application's own global scope.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as Gc;
  setFlagsFromString('--no-expose-gc');
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/** How often the heap is looked at. */
export const IDLE_CHECK_MS = 2_000;

/**
 * How many looks in a row must find the process idle before a burst's growth is handed back (20 s):
 * the release shrinks the young generation too, and the next burst pays for growing it again
 * (scavenges of a small young generation, its survivors promoted): released after every lull of a
 * few seconds, traffic that comes and goes cost 1.6 times the CPU per request (`/v1/validate`,
 * `../shared/bench/overhead.mjs`, whose service idles while the bare app is measured).
 */
export const IDLE_QUIET_CHECKS = 10;

/**
 * Growth of the heap's resident size over its size after the last release that is worth a full
 * collection (tens of milliseconds of main thread on this heap): a burst of small requests grows
 * the young generation by 5–15 MiB.
 */
export const IDLE_RELEASE_GROWTH_BYTES = 4 * 1024 * 1024;

/**
 * Share of a period the event loop may have been busy for the process to count as idle: background
 * work (a busy watch scheduler, a sweep) keeps the heap in use, and a full collection every period
 * would only cost it time.
 */
export const IDLE_MAX_UTILIZATION = 0.05;

/** The event loop's utilization (0–1) since the previous call. */
function utilizationSinceLastCall(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    return utilization;
  };
}

export interface IdleReleaseDeps {
  /** Requests started so far, and whether any is in flight. */
  requests: () => { started: number; active: number };
  /** The event loop's utilization since the previous call. */
  utilization?: () => number;
  /** The heap's resident bytes (V8's `total_physical_size`). */
  heapBytes?: () => number;
  release?: () => void;
}

/**
 * Called every IDLE_CHECK_MS: releases memory when the process was idle for the last
 * IDLE_QUIET_CHECKS calls (no request in flight or started, the event loop busy under
 * IDLE_MAX_UTILIZATION of the time) and the heap has grown by IDLE_RELEASE_GROWTH_BYTES since the
 * last release. Start it right after the
 * start-up release, whose result is the first baseline.
 */
export function idleRelease({
  requests,
  utilization = utilizationSinceLastCall(),
  heapBytes = () => getHeapStatistics().total_physical_size,
  release = releaseStartupMemory,
}: IdleReleaseDeps): () => void {
  let baseline = heapBytes();
  let seen = requests().started;
  let quietChecks = 0;
  return () => {
    const { started, active } = requests();
    const busy = utilization();
    const quiet = active === 0 && started === seen && busy < IDLE_MAX_UTILIZATION;
    seen = started;
    quietChecks = quiet ? quietChecks + 1 : 0;
    if (quietChecks < IDLE_QUIET_CHECKS || heapBytes() - baseline < IDLE_RELEASE_GROWTH_BYTES) return;
    release();
    baseline = heapBytes();
  };
}
