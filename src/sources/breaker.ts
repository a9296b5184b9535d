/**
 * Upstream circuit breakers that judge the source, not a domain. Real sources fail for one domain
 * while working for every other (crt.sh times out on names with huge result sets; a resolver waits
 * on a domain's dead name servers), and which domains are checked is the payer's choice: five paid
 * checks of five such domains used to switch crt.sh off for everyone for 30 s. So failures are only
 * a reason to look: when they span `distinct` different domains within `windowMs` with no success
 * in between, the breaker asks the source a control question whose answer no caller chooses (crt.sh:
 * a search that matches nothing; the primary resolver: the root SOA). Only a failing control opens
 * the breaker; an answered one clears the evidence (those domains were slow, the source is fine).
 * After the cool-down the control is asked again, while callers still skip the source: answered
 * closes the breaker, failed opens it for another cool-down. No caller's own call is the probe, so
 * no payer can hold it open.
 */
/** Circuit breaker states as exported: 0 closed, 1 open, 2 half-open. */
export type BreakerState = 'closed' | 'open' | 'half_open';

/** Distinct failing domains within the window that make the breaker ask its control question. */
export const BREAKER_DISTINCT_FAILURES = 5;
/** How long a failure counts as evidence, in milliseconds. */
export const BREAKER_WINDOW_MS = 60_000;
/** How long an open breaker skips its source before the control is asked again, in milliseconds. */
export const BREAKER_COOL_DOWN_MS = 30_000;
/**
 * After this many milliseconds an unanswered control question is forgotten (its late answer
 * ignored) and may be asked again: a question lost with the request that started it (a Worker's
 * request context ends) must not leave the breaker waiting for ever.
 */
export const BREAKER_CONTROL_PATIENCE_MS = 10_000;

/** Asks the source a question no caller chose; resolves true when it answered (never rejects). */
export type BreakerControl = () => Promise<boolean>;

export interface Breaker {
  readonly state: BreakerState;
  /** Whether a call may go out now; false while open or while the post-cool-down control runs. */
  allow(): boolean;
  success(): void;
  /** A failed call for `key` (the domain checked): evidence, never a verdict on its own. */
  failure(key: string): void;
}

export interface BreakerOptions {
  distinct?: number;
  windowMs?: number;
  coolDownMs?: number;
  controlPatienceMs?: number;
  now?: () => number;
}

export function createBreaker(control: BreakerControl, options: BreakerOptions = {}): Breaker {
  const {
    distinct = BREAKER_DISTINCT_FAILURES,
    windowMs = BREAKER_WINDOW_MS,
    coolDownMs = BREAKER_COOL_DOWN_MS,
    controlPatienceMs = BREAKER_CONTROL_PATIENCE_MS,
    now = performance.now.bind(performance),
  } = options;
  /** Domain → time of its latest failure, since the last success. */
  const evidence = new Map<string, number>();
  let openedAt: number | null = null;
  /** The control question in flight (when it was asked); a later one, a new object, supersedes it. */
  let asked: { at: number } | null = null;

  const state = (): BreakerState => {
    if (openedAt === null) return 'closed';
    return now() - openedAt >= coolDownMs ? 'half_open' : 'open';
  };

  /** One control question at a time; its answer decides, whatever happened meanwhile. */
  const askControl = () => {
    const at = now();
    if (asked && at - asked.at < controlPatienceMs) return;
    const question = { at };
    asked = question;
    control()
      .catch(() => false)
      .then((answered) => {
        if (asked !== question) return;
        asked = null;
        evidence.clear();
        openedAt = answered ? null : now();
      });
  };

  return {
    get state() {
      return state();
    },
    allow() {
      const current = state();
      if (current === 'half_open') askControl();
      return current === 'closed';
    },
    success() {
      evidence.clear();
    },
    failure(key) {
      if (openedAt !== null) return;
      const at = now();
      evidence.delete(key);
      evidence.set(key, at);
      // Entries are in time order (a repeated key moves to the end), so the stale ones lead.
      for (const [seen, seenAt] of evidence) {
        if (at - seenAt < windowMs) break;
        evidence.delete(seen);
      }
      if (evidence.size >= distinct) askControl();
    },
  };
}

/** The breakers of one process, by source name, for the sources, `/metrics` and `/readyz`. */
export interface BreakerBoard {
  /** The breaker of `source`, made on first use with `control` as its control question. */
  of(source: string, control: BreakerControl): Breaker;
  states(): [string, BreakerState][];
  /**
   * Resolves once every control question asked so far has its answer. A Worker keeps the request
   * that asked one alive until then (`waitUntil`): a question cut off with its request would
   * otherwise count as a failed control and open the breaker.
   */
  controlsAnswered(): Promise<void>;
}

export function createBreakerBoard(options: BreakerOptions = {}): BreakerBoard {
  const breakers = new Map<string, Breaker>();
  const asking = new Set<Promise<boolean>>();
  const tracked =
    (control: BreakerControl): BreakerControl =>
    () => {
      const question = control();
      asking.add(question);
      const forget = () => void asking.delete(question);
      question.then(forget, forget);
      return question;
    };
  return {
    of(source, control) {
      let breaker = breakers.get(source);
      if (!breaker) {
        breaker = createBreaker(tracked(control), options);
        breakers.set(source, breaker);
      }
      return breaker;
    },
    states: () => [...breakers].map(([source, breaker]) => [source, breaker.state]),
    controlsAnswered: async () => {
      await Promise.allSettled([...asking]);
    },
  };
}
