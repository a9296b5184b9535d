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
import type { SourceCall, SourceFailure } from '../failure.ts';
import { CERTSPOTTER_SOURCE, fetchCertspotterIssuances } from './certspotter.ts';
import { CRTSH_SOURCE, fetchCrtshIssuances } from './crtsh.ts';
import { type CtSourceName, combineCtFailures } from './failure.ts';
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
  const breaker = options.crtshBreaker;
  const now = () => performance.now();

  return (domain) =>
    new Promise<CtLookupOutcome>((resolve, reject) => {
      const deadline = now() + budgetMs;
      const attempts: Attempt[] = [];
      const calls: SourceCall[] = [];
      const failures: SourceFailure[] = [];
      /** Sources that answered with no covering issuance, waiting for the other to confirm. */
      const empty: CtSourceName[] = [];
      let settled = false;
      let hedgeTimer: ReturnType<typeof setTimeout> | undefined;

      const finish = (outcome: CtLookupResult) => {
        settled = true;
        clearTimeout(hedgeTimer);
        for (const attempt of attempts) {
          if (attempt.done) continue;
          // The loser is cancelled; it is still reported as a source that was consulted.
          attempt.done = true;
          attempt.controller.abort();
          // crt.sh still running here has outlived the hedge delay: a failure for its breaker.
          if (attempt.name === CRTSH_SOURCE) breaker?.failure(domain);
          calls.push({
            name: attempt.name,
            url: attempt.url.href,
            ok: false,
            ms: Math.round(now() - attempt.startedAt),
            cached: false,
          });
        }
        resolve({ result: outcome, calls });
      };

      const finishIfAllFailed = () => {
        if (attempts.every((other) => other.done)) {
          finish({ ok: false, failure: combineCtFailures(inSourceOrder(unconfirmed(failures, empty))) });
        }
      };

      const launch = (name: CtSourceName) => {
        if (settled || attempts.some((attempt) => attempt.name === name)) return;
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
          calls.push({ name, url: url.href, ok: false, ms: 0, cached: false, skipped: true });
          failures.push({
            code: 'circuit_open',
            source: name,
            detail:
              'crt.sh was skipped: it failed for several domains and for a control search, and is rested',
          });
          launch(CERTSPOTTER_SOURCE);
          return finishIfAllFailed();
        }
        const call = {
          fetch: options.fetch,
          timeoutMs: Math.max(1, Math.floor(deadline - attempt.startedAt)),
          signal: attempt.controller.signal,
        };
        const pending =
          name === CRTSH_SOURCE
            ? fetchCrtshIssuances(domain, { ...call, baseUrl: url })
            : fetchCertspotterIssuances(domain, { ...call, baseUrl: url, apiKey: options.certspotterApiKey });
        pending.then((result) => {
          if (attempt.done) return;
          attempt.done = true;
          calls.push({
            name,
            url: url.href,
            ok: result.ok,
            ms: Math.round(now() - attempt.startedAt),
            cached: false,
          });
          if (name === CRTSH_SOURCE) {
            if (result.ok) breaker?.success();
            else breaker?.failure(domain);
          }
          if (result.ok && result.value.length > 0) {
            return finish({ ok: true, value: { issuances: result.value, source: name } });
          }
          if (result.ok) {
            empty.push(name);
            // Both empty: crt.sh, the full history, is the source of the agreed answer.
            if (empty.length === 2)
              return finish({ ok: true, value: { issuances: [], source: CRTSH_SOURCE } });
            launch(otherSource(name));
          } else {
            failures.push(result.failure);
            // crt.sh failing outright sends us to Cert Spotter at once rather than after the hedge delay.
            if (name === CRTSH_SOURCE) launch(CERTSPOTTER_SOURCE);
          }
          finishIfAllFailed();
        }, reject);
      };

      launch(CRTSH_SOURCE);
      if (!settled) hedgeTimer = setTimeout(() => launch(CERTSPOTTER_SOURCE), hedgeDelayMs);
    });
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
