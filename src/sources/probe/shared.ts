/**
 * Probes of one domain shared: concurrent callers wait for the one probe under way (one connection,
 * not one each), and a finished verdict is reused for a few seconds, marked `cached`.
 */
import { LRUCache } from 'lru-cache';
import type { Probe } from './probe.ts';
import type { ProbeAnswer } from './verdict.ts';

/** How long a finished pass/fail is reused for the same domain, in milliseconds. */
export const PROBE_REUSE_MS = 5_000;

/** A verdict (with the served leaf on Node) and whether it was reused from an earlier probe. */
export type SharedProbeAnswer = ProbeAnswer & { cached: boolean };

export function shareProbes(
  probe: Probe,
  { reuseMs = PROBE_REUSE_MS }: { reuseMs?: number } = {},
): (domain: string) => Promise<SharedProbeAnswer> {
  const underway = new Map<string, Promise<ProbeAnswer>>();
  const recent = new LRUCache<string, ProbeAnswer>({ max: 4096, ttl: reuseMs });
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
