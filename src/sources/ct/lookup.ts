/**
 * The hedged CT lookup: crt.sh first (full history), Cert Spotter when crt.sh is slow or fails
 * (unexpired issuances only), the first answer with issuances wins and the loser is cancelled.
 * An empty answer is not the truth on its own (crt.sh has answered `[]` for a domain with six
 * certificates): "no certificate" needs both aggregators to say so, and when the other one fails
 * the lookup fails. Cached.
 */
import type { Breaker } from '../breaker.ts';
import type { FetchLike } from '../bounded-fetch.ts';
import { createSourceCache, type SharedAnswers, type SourceCache } from '../cache.ts';
import type { SourceCall, SourceFailure, SourceResult } from '../failure.ts';
import { CERTSPOTTER_SOURCE, fetchCertspotterIssuances } from './certspotter.ts';
import { CRTSH_SOURCE, fetchCrtshIssuances } from './crtsh.ts';
import { type CtSourceName, combineCtFailures } from './failure.ts';
import type { Issuance } from './issuance.ts';
import type { CtLookupOutcome, CtLookupResult } from './outcome.ts';
import { isSharedCtOutcome } from './shared-outcome.ts';
import { base64Der } from './x509.ts';

/** How long crt.sh may take before Cert Spotter is asked as well, in milliseconds. */
export const CT_HEDGE_DELAY_MS = 3_000;
/** Budget for a whole lookup, both sources included, in milliseconds. */
export const CT_BUDGET_MS = 12_000;
/** How long a successful CT answer is reused, in milliseconds. */
export const CT_CACHE_TTL_MS = 10 * 60 * 1000;
/** Most domains whose CT answer is kept. */
export const CT_CACHE_MAX_ENTRIES = 1_000;

/** Looks up the CT issuances covering a lower-case ASCII domain. Never throws for upstream trouble. */
export type CtLookup = (domain: string) => Promise<CtLookupOutcome>;

export type CtCache = SourceCache<CtLookupOutcome>;

/** The dates of an issuance, read back from JSON. */
const ISSUANCE_DATES = new Set(['notBefore', 'notAfter', 'loggedAt']);

/**
 * A cache that keeps good answers for `CT_CACHE_TTL_MS`; failures are shared in flight but never
 * kept. With `shared`, other instances' answers are reused too: crt.sh is the slowest upstream
 * (seconds) and limits requests per client, so one fleet asks it once per domain.
 */
export function createCtCache(now?: () => number, shared?: SharedAnswers): CtCache {
  return createSourceCache<CtLookupOutcome>({
    max: CT_CACHE_MAX_ENTRIES,
    ttlMs: (outcome) => (outcome.result.ok ? CT_CACHE_TTL_MS : 0),
    now,
    ...(shared
      ? {
          shared: {
            answers: shared,
            namespace: 'ct',
            // A certificate's bytes travel as base64 (JSON would spell a Uint8Array index by index).
            replace: (key, value) =>
              key === 'der' && value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value,
            revive: (key, value) => {
              if (typeof value !== 'string') return value;
              if (key === 'der') return base64Der(value);
              return ISSUANCE_DATES.has(key) ? new Date(value) : value;
            },
            accept: isSharedCtOutcome,
          },
        }
      : {}),
  });
}

export interface CtLookupOptions {
  fetch: FetchLike;
  crtshUrl: URL;
  certspotterUrl: URL;
  certspotterApiKey?: string | undefined;
  /** Default `CT_HEDGE_DELAY_MS`. */
  hedgeDelayMs?: number;
  /** Default `CT_BUDGET_MS`. */
  budgetMs?: number;
  /** Default: a fresh `createCtCache()`. */
  cache?: CtCache;
  /** crt.sh's circuit breaker: while open, crt.sh is skipped and Cert Spotter asked at once. */
  crtshBreaker?: Breaker;
}

/** Builds the hedged, cached CT lookup. */
export function createCtLookup(options: CtLookupOptions): CtLookup {
  const cache = options.cache ?? createCtCache();
  const hedged = hedgedLookup(options);
  return async function ctLookup(domain) {
    // The cache stores whole outcomes; a failed one gets a TTL of 0, so it is only shared in flight.
    const { result, cached } = await cache.get(domain, async () => ({
      ok: true,
      value: await hedged(domain),
    }));
    if (!result.ok) throw new Error('unreachable: the CT loader never fails');
    const outcome = result.value;
    return cached
      ? { ...outcome, calls: outcome.calls.map((call) => ({ ...call, ms: 0, cached: true })) }
      : outcome;
  };
}

interface Attempt {
  name: CtSourceName;
  url: URL;
  controller: AbortController;
  startedAt: number;
  done: boolean;
}

function hedgedLookup(options: CtLookupOptions): (domain: string) => Promise<CtLookupOutcome> {
  const hedgeDelayMs = options.hedgeDelayMs ?? CT_HEDGE_DELAY_MS;
  const budgetMs = options.budgetMs ?? CT_BUDGET_MS;

  return (domain) =>
    new Promise<CtLookupOutcome>((resolve, reject) => {
      const race: Race = {
        options,
        domain,
        deadline: now() + budgetMs,
        attempts: [],
        calls: [],
        failures: [],
        empty: [],
        settled: false,
        resolve,
        reject,
      };
      launch(race, CRTSH_SOURCE);
      if (!race.settled) race.hedgeTimer = setTimeout(() => launch(race, CERTSPOTTER_SOURCE), hedgeDelayMs);
    });
}

const now = () => performance.now();

/** One domain's lookup under way: the sources asked, what they answered, and how it ends. */
interface Race {
  options: CtLookupOptions;
  domain: string;
  deadline: number;
  attempts: Attempt[];
  calls: SourceCall[];
  failures: SourceFailure[];
  /** Sources that answered with no covering issuance, waiting for the other to confirm. */
  empty: CtSourceName[];
  settled: boolean;
  hedgeTimer?: ReturnType<typeof setTimeout>;
  resolve: (outcome: CtLookupOutcome) => void;
  reject: (error: unknown) => void;
}

function finish(race: Race, outcome: CtLookupResult): void {
  race.settled = true;
  clearTimeout(race.hedgeTimer);
  for (const attempt of race.attempts) {
    if (attempt.done) continue;
    // The loser is cancelled; it is still reported as a source that was consulted.
    attempt.done = true;
    attempt.controller.abort();
    // crt.sh still running here has outlived the hedge delay: a failure for its breaker.
    if (attempt.name === CRTSH_SOURCE) race.options.crtshBreaker?.failure(race.domain);
    race.calls.push({
      name: attempt.name,
      url: attempt.url.href,
      ok: false,
      ms: Math.round(now() - attempt.startedAt),
      cached: false,
    });
  }
  race.resolve({ result: outcome, calls: race.calls });
}

function finishIfAllFailed(race: Race): void {
  if (race.attempts.every((other) => other.done)) {
    finish(race, {
      ok: false,
      failure: combineCtFailures(inSourceOrder(unconfirmed(race.failures, race.empty))),
    });
  }
}

/** Asks `name`, unless the race is over or it was asked already. */
function launch(race: Race, name: CtSourceName): void {
  const { options, domain, attempts } = race;
  const breaker = options.crtshBreaker;
  if (race.settled || attempts.some((attempt) => attempt.name === name)) return;
  const url = name === CRTSH_SOURCE ? options.crtshUrl : options.certspotterUrl;
  const attempt: Attempt = {
    name,
    url,
    controller: new AbortController(),
    startedAt: now(),
    done: false,
  };
  attempts.push(attempt);
  if (name === CRTSH_SOURCE && breaker && !breaker.allow()) {
    attempt.done = true;
    race.calls.push({ name, url: url.href, ok: false, ms: 0, cached: false, skipped: true });
    race.failures.push({
      code: 'circuit_open',
      source: name,
      detail: 'crt.sh was skipped: it failed for several domains and for a control search, and is rested',
    });
    launch(race, CERTSPOTTER_SOURCE);
    return finishIfAllFailed(race);
  }
  const call = {
    fetch: options.fetch,
    timeoutMs: Math.max(1, Math.floor(race.deadline - attempt.startedAt)),
    signal: attempt.controller.signal,
  };
  const pending =
    name === CRTSH_SOURCE
      ? fetchCrtshIssuances(domain, { ...call, baseUrl: url })
      : fetchCertspotterIssuances(domain, { ...call, baseUrl: url, apiKey: options.certspotterApiKey });
  pending.then((result) => answered(race, attempt, result), race.reject);
}

/** A source's answer: the race's result, a wait for the other source, or a failure on record. */
function answered(race: Race, attempt: Attempt, result: SourceResult<Issuance[]>): void {
  const { name, url } = attempt;
  const breaker = race.options.crtshBreaker;
  if (attempt.done) return;
  attempt.done = true;
  race.calls.push({
    name,
    url: url.href,
    ok: result.ok,
    ms: Math.round(now() - attempt.startedAt),
    cached: false,
  });
  if (name === CRTSH_SOURCE) {
    if (result.ok) breaker?.success();
    else breaker?.failure(race.domain);
  }
  if (result.ok && result.value.length > 0) {
    return finish(race, { ok: true, value: { issuances: result.value, source: name } });
  }
  if (result.ok) {
    race.empty.push(name);
    // Both empty: crt.sh, the full history, is the source of the agreed answer.
    if (race.empty.length === 2)
      return finish(race, { ok: true, value: { issuances: [], source: CRTSH_SOURCE } });
    launch(race, otherSource(name));
  } else {
    race.failures.push(result.failure);
    // crt.sh failing outright sends us to Cert Spotter at once rather than after the hedge delay.
    if (name === CRTSH_SOURCE) launch(race, CERTSPOTTER_SOURCE);
  }
  finishIfAllFailed(race);
}

function otherSource(name: CtSourceName): CtSourceName {
  return name === CRTSH_SOURCE ? CERTSPOTTER_SOURCE : CRTSH_SOURCE;
}

/** The failures, each saying which empty answer it left unconfirmed. */
function unconfirmed(failures: readonly SourceFailure[], empty: readonly CtSourceName[]): SourceFailure[] {
  if (empty.length === 0) return [...failures];
  const note = ` (${empty.join(' and ')} found no certificate, which needs confirming by the other aggregator)`;
  return failures.map((failure) => ({ ...failure, detail: `${failure.detail}${note}` }));
}

/** crt.sh first, so a 502 body always lists the primary aggregator first. */
function inSourceOrder(failures: readonly SourceFailure[]): SourceFailure[] {
  return [...failures].sort((a, b) => Number(a.source !== CRTSH_SOURCE) - Number(b.source !== CRTSH_SOURCE));
}
