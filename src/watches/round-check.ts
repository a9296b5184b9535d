/**
 * One site-health check of a domain per round, however many watches share the domain and whichever
 * worker (a claim, an instance of a fleet) holds them. The first worker to want a domain takes its
 * lease, checks it and publishes the outcome for the round's window; a worker that finds the lease
 * held waits for that outcome instead of checking again. A holder that dies (`kill -9`) leaves a
 * lease that ends within `LEASE_MS` (`src/payments/server/lock-lease.ts`), and a waiter then takes it and
 * checks itself. The scheduler does not know: this is a `WatchCheck` like any other.
 */
import { z } from 'zod';
import { CHECK_BUDGET_MS } from '../checks/check-budget.ts';
import { siteHealthResultSchema } from '../checks/site-health/result.ts';
import type { InFlightLock } from '../payments/server/in-flight-lock.ts';
import type { SharedAnswers } from '../sources/cache.ts';
import type { SourceFailureCode } from '../sources/failure.ts';
import type { WatchCheck, WatchCheckOutcome } from './ports.ts';

type CheckedOutcome = WatchCheckOutcome;

/**
 * A failed check (no result) is handed to the checks of its round that wanted it meanwhile and kept
 * only this long: its watches' next checks try again, so `watch.check_failed` counts real attempts.
 */
export const FAILURE_KEEP_MS = 10_000;
/** How often a check waiting for another worker's looks for its outcome. */
const POLL_MS = 200;
/**
 * A waiter checks by itself after this, whatever the lease says: a holder's check, and its
 * confirmation `confirmMs` later (`confirm.ts`), is over within two budgets, so one still holding
 * past them is stuck. Short enough that a claim of watches waiting on stuck holders still ends
 * within its lease.
 */
const waitLimitMs = (confirmMs: number) => 2 * CHECK_BUDGET_MS + confirmMs + 5_000;

/** The window a round's result is shared in, where the schedule is decided (`slots.ts`). */
export { roundWindowMs } from './slots.ts';

/** How long an outcome is handed out once checked: a result for the window, a failure briefly. */
export const keptFor = (isResult: boolean, windowMs: number) =>
  isResult ? windowMs : Math.min(windowMs, FAILURE_KEEP_MS);

/** Where the workers of a round meet. */
export interface RoundBoard {
  /** Outcomes by key (text, with a TTL); read back with suspicion. */
  outcomes: SharedAnswers;
  /**
   * A domain's single flight: a lease its holder keeps renewed, ending within `LEASE_MS` of the
   * holder's death (`src/payments/server/lock-lease.ts`). Rejects when the board cannot be asked.
   */
  leases: InFlightLock;
}

export interface RoundCheckOptions {
  windowMs: number;
  /** The confirmation interval of the check shared (`WATCH_CONFIRM_S`), which a waiter allows for. */
  confirmMs?: number;
  /** Told what went wrong with the board (the check goes on without it). */
  onError?: (error: unknown) => void;
  /** Test seams. */
  pollMs?: number;
  maxWaitMs?: number;
  now?: () => number;
}

const FAILURE_CODES: Record<SourceFailureCode, true> = {
  timeout: true,
  http_status: true,
  bad_content_type: true,
  malformed: true,
  too_large: true,
  rate_limited: true,
  network: true,
  servfail: true,
  refused: true,
  blocked_address: true,
  circuit_open: true,
};

const sharedOutcomeSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('result'),
    result: siteHealthResultSchema,
    unconfirmed: z.array(z.string()).optional(),
  }),
  z.object({
    type: z.literal('upstream_failed'),
    upstreams: z.array(
      z.object({
        name: z.string(),
        error: z.string().refine((code): code is SourceFailureCode => Object.hasOwn(FAILURE_CODES, code)),
        detail: z.string().optional(),
      }),
    ),
  }),
]);

/** A shared outcome read back, or null when `value` is not one (a partial write, an older version, tampering). */
export function sharedOutcome(value: unknown): CheckedOutcome | null {
  const parsed = sharedOutcomeSchema.safeParse(value);
  return parsed.success ? (parsed.data as CheckedOutcome) : null;
}

function parsedOutcome(text: string): CheckedOutcome | null {
  try {
    return sharedOutcome(JSON.parse(text));
  } catch {
    return null;
  }
}

export function sharedRoundCheck(
  check: WatchCheck,
  board: RoundBoard,
  options: RoundCheckOptions,
): WatchCheck {
  const { windowMs, onError = () => {} } = options;
  const pollMs = options.pollMs ?? POLL_MS;
  const maxWaitMs = options.maxWaitMs ?? waitLimitMs(options.confirmMs ?? 0);
  const now = options.now ?? Date.now;
  const keyOf = (domain: string) => `round:${domain}`;

  /** The outcome published under `key`, or null; an unreadable entry is reported (once: `tell`). */
  async function published(key: string, tell = true): Promise<CheckedOutcome | null> {
    const text = await board.outcomes.get(key);
    if (text === null) return null;
    const outcome = parsedOutcome(text);
    if (!outcome && tell) board.outcomes.unreadable?.(key);
    return outcome;
  }

  async function checkHolding(
    domain: string,
    key: string,
    release: () => Promise<void>,
  ): Promise<CheckedOutcome> {
    try {
      // The previous holder may have published between our look and our lease.
      const already = await published(key, false).catch(() => null);
      if (already) return already;
      const outcome = await check(domain);
      if (outcome.type !== 'invalid_input')
        await board.outcomes
          .set(key, JSON.stringify(outcome), keptFor(outcome.type === 'result', windowMs))
          .catch(onError);
      return outcome;
    } finally {
      await release().catch(onError);
    }
  }

  return async (domain) => {
    const key = keyOf(domain);
    const giveUpAt = now() + maxWaitMs;
    for (;;) {
      let release: (() => Promise<void>) | null;
      try {
        const outcome = await published(key);
        if (outcome) return outcome;
        release = await board.leases.acquire(key);
      } catch (error) {
        // The board is unreachable: this worker checks alone rather than not at all.
        onError(error);
        return check(domain);
      }
      if (release) return checkHolding(domain, key, release);
      if (now() >= giveUpAt) return check(domain);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  };
}
