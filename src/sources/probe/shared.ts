/**
 * Probes of one domain shared: concurrent callers wait for the one probe under way (one connection,
 * not one each), and a finished verdict is reused for a few seconds, marked `cached`.
 */
import { LRUCache } from 'lru-cache';
import type { Probe } from './probe.ts';
import type { ProbeAnswer } from './verdict.ts';

/** How long a finished pass/fail is reused for the same domain, in milliseconds. */
export const PROBE_REUSE_MS = 5_000;
/** Most bytes of reused answers (served leaves included) kept at once. */
export const REUSED_BYTES_MAX = 8 * 1024 * 1024;

/** A verdict (with the served leaf on Node) and whether it was reused from an earlier probe. */
export type SharedProbeAnswer = ProbeAnswer & { cached: boolean };

export interface ShareProbesOptions {
  /** How long a verdict is reused; default `PROBE_REUSE_MS`. */
  reuseMs?: number;
  /** The reuse window's clock in milliseconds (tests); default the cache's own, `performance.now`. */
  now?: () => number;
}

export function shareProbes(
  probe: Probe,
  { reuseMs = PROBE_REUSE_MS, now }: ShareProbesOptions = {},
): (domain: string) => Promise<SharedProbeAnswer> {
  const underway = new Map<string, Promise<ProbeAnswer>>();
  // Bounded by bytes too: an answer holds the served leaf, whose size the site chooses.
  const recent = new LRUCache<string, ProbeAnswer>({
    max: 4096,
    ttl: reuseMs,
    maxSize: REUSED_BYTES_MAX,
    sizeCalculation: (answer) => 256 + (answer.leaf?.byteLength ?? 0),
    // A given clock is read at every look-up: the cache's own reading lasts a millisecond of real time.
    ...(now ? { perf: { now }, ttlResolution: 0 } : {}),
  });
  return async function sharedProbe(domain) {
    const reused = recent.get(domain);
    if (reused) return { ...reused, cached: true };
    let running = underway.get(domain);
    if (!running) {
      running = probe(domain).finally(() => underway.delete(domain));
      underway.set(domain, running);
      running.then((verdict) => recent.set(domain, verdict)).catch(() => undefined);
    }
    return { ...(await running), cached: false };
  };
}
