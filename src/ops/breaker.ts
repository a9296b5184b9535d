/**
 * Upstream circuit breakers: after `failures` consecutive failures a source is skipped for a
 * cool-down; then one call at a time is let through (half-open) and its outcome closes the breaker
 * or opens it for another cool-down. Every call that `allow()` admits must end in `success()` or
 * `failure()`, or a half-open breaker keeps waiting for its probe.
 */
import type { BreakerState } from './metrics.ts';

/** Consecutive failures that open a breaker. */
export const BREAKER_FAILURES = 5;
/** How long an open breaker skips its source before a probe, in milliseconds. */
export const BREAKER_COOL_DOWN_MS = 30_000;

export interface Breaker {
  readonly state: BreakerState;
  /** Whether a call may go out now; in half-open this takes the single probe slot. */
  allow(): boolean;
  success(): void;
  failure(): void;
}

export interface BreakerOptions {
  failures?: number;
  coolDownMs?: number;
  now?: () => number;
}

export function createBreaker(options: BreakerOptions = {}): Breaker {
  const {
    failures = BREAKER_FAILURES,
    coolDownMs = BREAKER_COOL_DOWN_MS,
    now = performance.now.bind(performance),
  } = options;
  let consecutive = 0;
  let openedAt: number | null = null;
  let probing = false;

  const state = (): BreakerState => {
    if (openedAt === null) return 'closed';
    return now() - openedAt >= coolDownMs ? 'half_open' : 'open';
  };

  return {
    get state() {
      return state();
    },
    allow() {
      const current = state();
      if (current === 'closed') return true;
      if (current === 'open' || probing) return false;
      probing = true;
      return true;
    },
    success() {
      consecutive = 0;
      openedAt = null;
      probing = false;
    },
    failure() {
      consecutive += 1;
      if (probing || consecutive >= failures) openedAt = now();
      probing = false;
    },
  };
}

/** The breakers of one process, by source name, for the sources, `/metrics` and `/readyz`. */
export interface BreakerBoard {
  /** The breaker of `source`, made on first use. */
  of(source: string): Breaker;
  states(): [string, BreakerState][];
}

export function createBreakerBoard(options: BreakerOptions = {}): BreakerBoard {
  const breakers = new Map<string, Breaker>();
  return {
    of(source) {
      let breaker = breakers.get(source);
      if (!breaker) {
        breaker = createBreaker(options);
        breakers.set(source, breaker);
      }
      return breaker;
    },
    states: () => [...breakers].map(([source, breaker]) => [source, breaker.state]),
  };
}
